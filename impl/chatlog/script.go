package chatlog

import (
	"strings"

	"anchorage/impl/vary"
)

// CoreScript is the evaluation core shared by the page script served to
// browsers and by the simulated realms (sim/realm), so that both evaluate
// code, encode results and keep the error buffer the same way.
//
// It defines globalThis.__chatlog with:
//   - run(code): a promise of {ok, json, isJSON, text, stack}. The code is
//     evaluated as a script (its completion value is the result); code that
//     uses await is run as the body of an async function that returns the
//     value of its last expression statement, so "await f();" gives f's
//     value. A promise result is awaited.
//   - capture(err, kind): push a description of err into the error buffer
//     (§chatlog-error-buffer); kind "rejection" marks unhandled rejections.
//   - take(): the buffer's contents, emptying it.
const CoreScript = `(function () {
  "use strict";
  if (globalThis.__chatlog) return; // loaded twice
  var buffer = [];
  function describe(e) {
    if (e && typeof e === "object" && "stack" in e && e.stack) {
      var head = String(e.name || "Error") + ": " + String(e.message);
      var st = String(e.stack);
      return st.indexOf(head) === 0 ? st : head + "\n" + st;
    }
    if (e && typeof e === "object" && "message" in e) {
      return String(e.name || "Error") + ": " + String(e.message);
    }
    return String(e);
  }
  function encode(v) {
    var t = typeof v;
    if (v === undefined || t === "function" || t === "symbol" || t === "bigint" ||
        (t === "number" && !isFinite(v))) {
      return {ok: true, text: String(v)};
    }
    try {
      var j = JSON.stringify(v);
      if (j === undefined) return {ok: true, text: String(v)};
      return {ok: true, isJSON: true, json: j};
    } catch (e) {
      return {ok: true, text: String(v)};
    }
  }
  var AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
  var indirect = eval;
  // lastValue compiles code that uses await as the body of an async
  // function that returns the value of its last expression statement, as a
  // script's completion value would be: the longest tail of the code that
  // reads as one expression, after the first ";" or line break where the
  // code splits into statements and that expression. Trailing semicolons
  // and blanks are ignored, so "await f();" gives f's value.
  function lastValue(code) {
    var src = code.replace(/[\s;]+$/, "");
    try { return new AsyncFunction("return (" + src + "\n)"); } catch (e) {}
    var tries = 0;
    for (var i = 0; i < src.length && tries < 4096; i++) {
      var c = src.charAt(i);
      if (c !== ";" && c !== "\n") continue;
      var tail = src.slice(i + 1);
      if (!/\S/.test(tail)) break;
      tries++;
      try { return new AsyncFunction(src.slice(0, i + 1) + "\nreturn (" + tail + "\n)"); } catch (e) {}
    }
    return new AsyncFunction(code);
  }
  async function run(code) {
    try {
      var v;
      try {
        v = indirect(code);
      } catch (e) {
        if (!(e instanceof SyntaxError) || !/\bawait\b/.test(code)) throw e;
        v = lastValue(code)();
      }
      if (v && typeof v.then === "function") v = await v;
      return encode(v);
    } catch (e) {
      return {ok: false, stack: describe(e)};
    }
  }
  function capture(e, kind) {
    buffer.push((kind === "rejection" ? "Unhandled rejection: " : "") + describe(e));
  }
  function take() {
    var b = buffer;
    buffer = [];
    return b;
  }
  globalThis.__chatlog = {run: run, capture: capture, take: take, describe: describe};
})();
`

// ListenerScript is the adapter's error capture (§chatlog-error-buffer):
// the window's "error" and "unhandledrejection" events go into the buffer
// of CoreScript. The browser runs it as part of PageScript; the simulated
// pages run it too, over a window that dispatches the same events.
const ListenerScript = `(function () {
  "use strict";
  var C = globalThis.__chatlog;
  window.addEventListener("error", function (ev) { C.capture(ev.error || ev.message, "error"); });
  window.addEventListener("unhandledrejection", function (ev) { C.capture(ev.reason, "rejection"); });
})();
`

// PageScript is the browser adapter served at /adapter.js: it registers the
// page, long-polls for jobs, evaluates them with CoreScript, posts results
// with the error buffer (ListenerScript fills it), and sends heartbeats. It
// talks to the server it was loaded from, so any page can load it with an
// absolute URL (see HTTPTransport for CORS), and after a server restart it
// rejoins under its old id and keeps its log.
const PageScript = CoreScript + ListenerScript + pageLoop

// CoreScriptFor is CoreScript with the variations in force: with
// "adapter-words" an unhandled rejection is marked "(in promise) ".
func CoreScriptFor(v vary.Set) string {
	return vary.Choose(v, "adapter-words", CoreScript, strings.Replace(CoreScript, `"Unhandled rejection: "`, `"(in promise) "`, 1))
}

// PageScriptFor is PageScript with the variations in force.
func PageScriptFor(v vary.Set) string { return CoreScriptFor(v) + ListenerScript + pageLoop }

// pageLoop is the part of the browser adapter after the evaluation core and
// the error capture: registering, polling, posting results, heartbeats.
const pageLoop = `(function () {
  "use strict";
  if (globalThis.__chatlogAdapter) return; // loaded twice (a bookmarklet clicked again)
  globalThis.__chatlogAdapter = true;
  var C = globalThis.__chatlog;
  // The server is where this script came from, so that a page of another
  // origin can load it with an absolute URL (script tag or bookmarklet).
  var base = "";
  try { base = new URL(document.currentScript.src).origin; } catch (e) {}
  var me = null;
  function sleep(ms) { return new Promise(function (ok) { setTimeout(ok, ms); }); }
  function post(path, body) {
    return fetch(base + path, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  }
  // register connects the page; after a server restart (403) it rejoins
  // under the id it had, so that it keeps its log.
  async function register() {
    var body = {name: document.title || "page", url: location.href, lang: "JS"};
    if (me) body.id = me.id;
    var r = await post("/api/register", body);
    if (!r.ok) throw new Error("register: " + r.status);
    me = await r.json();
    window.__chatlogInstance = me;
  }
  async function rejoin() {
    try { await register(); } catch (e) { await sleep(1000); }
  }
  async function loop() {
    setInterval(function () {
      post("/api/heartbeat", {id: me.id, token: me.token}).then(function (r) {
        if (r.status === 403) rejoin();
      }, function () {});
    }, 5000);
    for (;;) {
      var r;
      try {
        r = await fetch(base + "/api/poll?id=" + encodeURIComponent(me.id) + "&token=" + encodeURIComponent(me.token));
      } catch (e) { await sleep(1000); continue; }
      if (r.status === 204) continue;
      if (r.status === 403) { await rejoin(); continue; }
      if (!r.ok) { await sleep(1000); continue; }
      var task = await r.json();
      var out = await C.run(task.code);
      out.errors = C.take();
      out.id = me.id; out.token = me.token; out.jobId = task.jobId;
      try { await post("/api/result", out); } catch (e) { C.capture(e, "error"); }
    }
  }
  register().then(loop, function (e) { console.error("chatlog adapter:", e); });
})();
`

// pageHTML is served at / : a page that loads the adapter.
const pageHTML = `<!doctype html>
<html><head><meta charset="utf-8"><title>chatlog page</title></head>
<body><p>chatlog REPL page</p><script src="/adapter.js"></script></body></html>
`
