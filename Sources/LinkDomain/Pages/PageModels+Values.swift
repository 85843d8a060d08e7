// Each model names its values for the templates itself, once: no reflection per page and per
// value, and an absent optional is no value at all, so `{{#openURL}}` skips its section. The
// names are the properties' (custom templates in `publicDirectory` rely on them).

import LinkDomainCore
import LinkDomainStorage

extension HiddenField: PageValues {
    func visit(_ visitor: inout some PageValueVisitor) {
        visitor.text("name", name)
        visitor.text("value", value)
    }
}

extension ResetRequestForm: PageValues {
    func visit(_ visitor: inout some PageValueVisitor) { visitor.children("fields", fields) }
}

extension NewLinkForm: PageValues {
    func visit(_ visitor: inout some PageValueVisitor) { visitor.children("fields", fields) }
}

extension MessagePage {
    func visit(_ visitor: inout some PageValueVisitor) {
        visitor.text("title", title)
        visitor.text("purpose", purpose)
        visitor.texts("paragraphs", paragraphs)
        visitor.text("actionURL", actionURL)
        visitor.text("actionLabel", actionLabel)
        visitor.flag("actionSecondary", actionSecondary)
        visitor.text("closeNote", closeNote)
        visitor.child("resetRequest", resetRequest)
        visitor.child("newLink", newLink)
        visitor.text("qrPath", qrPath)
        visitor.number("qrSide", qrSide)
    }
}

extension ConfirmActionPage {
    func visit(_ visitor: inout some PageValueVisitor) {
        visitor.text("title", title)
        visitor.text("body", body)
        visitor.text("button", button)
        visitor.text("email", email)
        visitor.text("newEmail", newEmail)
        visitor.children("fields", fields)
    }
}

extension ResetPasswordPage {
    func visit(_ visitor: inout some PageValueVisitor) {
        visitor.text("title", title)
        visitor.text("email", email)
        visitor.text("error", error)
        visitor.children("fields", fields)
    }
}

extension LandingPage {
    func visit(_ visitor: inout some PageValueVisitor) {
        visitor.text("title", title)
        visitor.text("body", body)
        visitor.flag("continueFirst", continueFirst)
        visitor.text("pressAndHold", pressAndHold)
        visitor.text("openURL", openURL)
        visitor.text("storeURL", storeURL)
        visitor.text("storeLabel", storeLabel)
        visitor.text("webURL", webURL)
        visitor.text("inAppHelp", inAppHelp)
        visitor.text("pageURL", pageURL)
        visitor.text("copiedNote", copiedNote)
        visitor.text("appArgument", appArgument)
        visitor.text("handoffURL", handoffURL)
    }
}

extension PreviewPage {
    func visit(_ visitor: inout some PageValueVisitor) {
        visitor.text("title", title)
        visitor.text("description", description)
        visitor.text("continueURL", continueURL)
        visitor.text("openURL", openURL)
        visitor.text("storeURL", storeURL)
        visitor.text("storeLabel", storeLabel)
        visitor.text("handoffURL", handoffURL)
    }
}

extension SocialPage {
    func visit(_ visitor: inout some PageValueVisitor) {
        visitor.text("title", title)
        visitor.text("description", description)
        visitor.text("imageURL", imageURL)
    }
}

extension DebugPage.Parameter: PageValues {
    func visit(_ visitor: inout some PageValueVisitor) {
        visitor.text("name", name)
        visitor.text("value", value)
    }
}

extension DebugPage.Flow: PageValues {
    func visit(_ visitor: inout some PageValueVisitor) {
        visitor.text("platform", platform)
        visitor.text("outcome", outcome)
    }
}

extension DebugPage {
    func visit(_ visitor: inout some PageValueVisitor) {
        visitor.text("title", title)
        visitor.text("shape", shape)
        visitor.children("parameters", parameters)
        visitor.children("flows", flows)
    }
}
