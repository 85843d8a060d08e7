import Mustache

// Each model names its values for the templates itself: no reflection per page and per value, and
// an absent optional is no value at all, so `{{#openURL}}` skips its section. The names are the
// properties' (custom templates in `publicDirectory` rely on them).

extension HiddenField: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "name": self.name
        case "value": value
        default: nil
        }
    }
}

extension ResetRequestForm: MustacheParent {
    func child(named name: String) -> Any? { name == "fields" ? fields : nil }
}

extension NewLinkForm: MustacheParent {
    func child(named name: String) -> Any? { name == "fields" ? fields : nil }
}

extension MessagePage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "title": title
        case "purpose": purpose
        case "paragraphs": paragraphs
        case "actionURL": actionURL
        case "actionLabel": actionLabel
        case "resetRequest": resetRequest
        case "newLink": newLink
        case "qrPath": qrPath
        case "qrSide": qrSide
        default: nil
        }
    }
}

extension ConfirmActionPage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "title": title
        case "body": body
        case "button": button
        case "email": email
        case "newEmail": newEmail
        case "fields": fields
        default: nil
        }
    }
}

extension ResetPasswordPage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "title": title
        case "email": email
        case "error": error
        case "fields": fields
        default: nil
        }
    }
}

extension LandingPage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "title": title
        case "body": body
        case "continueFirst": continueFirst
        case "pressAndHold": pressAndHold
        case "openURL": openURL
        case "storeURL": storeURL
        case "storeLabel": storeLabel
        case "webURL": webURL
        case "inAppHelp": inAppHelp
        case "pageURL": pageURL
        case "copiedNote": copiedNote
        case "appArgument": appArgument
        case "handoffURL": handoffURL
        default: nil
        }
    }
}

extension PreviewPage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "title": title
        case "description": description
        case "continueURL": continueURL
        case "openURL": openURL
        case "storeURL": storeURL
        case "storeLabel": storeLabel
        case "handoffURL": handoffURL
        default: nil
        }
    }
}

extension SocialPage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "title": title
        case "description": description
        case "imageURL": imageURL
        default: nil
        }
    }
}

extension DebugPage.Parameter: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "name": self.name
        case "value": value
        default: nil
        }
    }
}

extension DebugPage.Flow: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "platform": platform
        case "outcome": outcome
        default: nil
        }
    }
}

extension DebugPage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "title": title
        case "shape": shape
        case "parameters": parameters
        case "flows": flows
        default: nil
        }
    }
}
