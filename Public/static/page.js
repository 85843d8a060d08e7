// Enhancements only: every page works without this file (it is never required, and it sends
// nothing anywhere). It shows the buttons that need a script and wires them up:
// - "Show passwords" on the new-password form, which puts the fields back to hidden before the
//   form is sent, so password managers still see password fields;
// - the second password field refuses a mismatch before the form is sent, so nothing typed is lost;
// - "Copy link" in an app's own browser;
// - on an iPhone, "Copy the link and get the app": the tap puts a sealed hand-off URL on the
//   pasteboard, which the app claims once on its first launch, then goes to the App Store.
"use strict";

document.querySelectorAll("button[data-reveal]").forEach(function (button) {
  var form = button.form;
  var fields = form ? form.querySelectorAll("input[data-secret]") : [];
  function show(visible) {
    fields.forEach(function (field) { field.type = visible ? "text" : "password"; });
    button.setAttribute("aria-pressed", visible ? "true" : "false");
    button.textContent = visible ? button.dataset.hideLabel : button.dataset.showLabel;
  }
  button.hidden = false;
  button.addEventListener("click", function () { show(button.getAttribute("aria-pressed") !== "true"); });
  if (form) form.addEventListener("submit", function () { show(false); });
});

document.querySelectorAll("input[data-same-as]").forEach(function (again) {
  var first = document.getElementById(again.dataset.sameAs);
  if (!first) return;
  function check() {
    again.setCustomValidity(again.value && again.value !== first.value ? again.dataset.mismatch : "");
  }
  first.addEventListener("input", check);
  again.addEventListener("input", check);
});

document.querySelectorAll("button[data-copy]").forEach(function (button) {
  if (!navigator.clipboard) return;
  var done = document.getElementById(button.dataset.copiedNote);
  button.hidden = false;
  button.addEventListener("click", function () {
    navigator.clipboard.writeText(button.dataset.copy).then(function () {
      if (done) done.hidden = false;
    });
  });
});

document.querySelectorAll("a[data-copy-then]").forEach(function (link) {
  if (!navigator.clipboard) return;
  link.textContent = link.dataset.copyLabel;
  link.addEventListener("click", function (event) {
    event.preventDefault();
    function go() { window.location.href = link.href; }
    navigator.clipboard.writeText(link.dataset.copyThen).then(go, go);
  });
});
