// The console's own script, served from the console (script-src 'self'). Every page works
// without it: copy buttons stay hidden and the text beside them can be selected as before.
(function () {
  "use strict";

  function copy(text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    // Plain http on a name other than localhost: the older way, through a selected field.
    return new Promise(function (resolve, reject) {
      var field = document.createElement("textarea");
      field.value = text;
      field.setAttribute("readonly", "");
      field.style.position = "fixed";
      field.style.opacity = "0";
      document.body.appendChild(field);
      field.select();
      var done = document.execCommand("copy");
      document.body.removeChild(field);
      if (done) resolve(); else reject(new Error("copy refused"));
    });
  }

  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    var status = document.createElement("span");
    status.className = "visually-hidden";
    status.setAttribute("role", "status");
    button.after(status);
    button.hidden = false;
    button.addEventListener("click", function () {
      copy(button.getAttribute("data-copy")).then(function () {
        status.textContent = button.getAttribute("data-copied");
        button.classList.add("copied");
        setTimeout(function () { status.textContent = ""; button.classList.remove("copied"); }, 3000);
      });
    });
  });

  // A page Back brings back from the browser's memory may show a link or mail changed since (a
  // delete's buttons still live): ask the server for it again.
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) window.location.reload();
  });
})();
