/*
 * A Web Worker run in a hidden iframe, for the site opened from the file system (file://),
 * where browsers refuse to start a Worker: Material's search runs its worker in it. Material's
 * offline plugin would load squidfunk's iframe-worker (MIT) from unpkg.com instead; this file,
 * written for this site after the same design, keeps the site free of any remote script. The
 * plugin skips its own when a polyfill's URL names "iframe-worker" (mkdocs.yml: extra.polyfills).
 *
 * In the iframe, postMessage sends to this page and importScripts returns a Promise that
 * resolves once the scripts ran (Material's worker awaits it).
 */
(function () {
  "use strict";
  if (location.protocol !== "file:") {
    return;
  }
  var RUNTIME =
    "postMessage=function(data){parent.postMessage(data,'*')};" +
    "importScripts=function(){var urls=Array.prototype.slice.call(arguments);" +
    "return urls.reduce(function(done,url){return done.then(function(){" +
    "return new Promise(function(resolve,reject){var s=document.createElement('script');" +
    "s.src=url;s.onload=function(){resolve()};s.onerror=reject;" +
    "document.body.appendChild(s)})})},Promise.resolve())};";

  class FrameWorker extends EventTarget {
    constructor(url) {
      super();
      this.onmessage = null;
      this.onerror = null;
      var frame = document.createElement("iframe");
      frame.hidden = true;
      document.body.appendChild(frame);
      this.frame = frame;
      var inner = frame.contentWindow;
      inner.document.open();
      inner.document.write(
        "<html><body><script>" + RUNTIME + "<\/script>" +
        "<script src=\"" + String(url).replace(/"/g, "&quot;") + "\"><\/script></body></html>"
      );
      inner.document.close();
      this.ready = new Promise(function (resolve) {
        if (inner.document.readyState === "complete") {
          resolve();
        } else {
          inner.addEventListener("load", function () { resolve(); });
        }
      });
      var worker = this;
      this.relay = function (event) {
        if (event.source !== frame.contentWindow) {
          return;
        }
        var message = new MessageEvent("message", { data: event.data });
        worker.dispatchEvent(message);
        if (typeof worker.onmessage === "function") {
          worker.onmessage(message);
        }
      };
      window.addEventListener("message", this.relay);
    }

    postMessage(data) {
      var inner = this.frame.contentWindow;
      this.ready.then(function () {
        inner.dispatchEvent(new MessageEvent("message", { data: data }));
      });
    }

    terminate() {
      window.removeEventListener("message", this.relay);
      this.frame.remove();
    }
  }

  window.Worker = FrameWorker;
})();
