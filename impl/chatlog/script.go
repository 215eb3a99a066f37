package chatlog

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

// PageScript is the browser adapter served at /adapter.js: it registers the
// page, long-polls for jobs, evaluates them with CoreScript, posts results
// with the error buffer, and sends heartbeats. window "error" and
// "unhandledrejection" events go to the buffer (§chatlog-error-buffer).
const PageScript = CoreScript + `(function () {
  "use strict";
  var C = globalThis.__chatlog;
  window.addEventListener("error", function (ev) { C.capture(ev.error || ev.message, "error"); });
  window.addEventListener("unhandledrejection", function (ev) { C.capture(ev.reason, "rejection"); });
  var me = null;
  function post(path, body) {
    return fetch(path, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  }
  async function register() {
    var r = await post("/api/register", {name: document.title || "page", url: location.href, lang: "JS"});
    if (!r.ok) throw new Error("register: " + r.status);
    me = await r.json();
    window.__chatlogInstance = me;
    setInterval(function () { post("/api/heartbeat", {id: me.id, token: me.token}).catch(function () {}); }, 5000);
  }
  async function loop() {
    for (;;) {
      var r;
      try {
        r = await fetch("/api/poll?id=" + encodeURIComponent(me.id) + "&token=" + encodeURIComponent(me.token));
      } catch (e) { await new Promise(function (ok) { setTimeout(ok, 1000); }); continue; }
      if (r.status === 204) continue;
      if (!r.ok) { await new Promise(function (ok) { setTimeout(ok, 1000); }); continue; }
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
