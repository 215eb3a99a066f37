// JACE determinism prelude. Evaluated once in every fresh VM, before any
// module code. It installs the fixed clock, the seeded xorshift32 generator,
// removes every way of turning a string into code, every timer, network,
// thread or GC-observable global, and evaluates to the two functions the
// host calls (call and shape), which no global refers to. Everything the host needs is captured here in closures
// so that a module that tampers with globals or prototypes afterwards can
// only spoil its own answers, never reach the real clock or the host.
(function (global) {
  "use strict";
  const RealDate = global.Date;
  const construct = Reflect.construct;
  const defineProperty = Object.defineProperty;
  const getPrototypeOf = Object.getPrototypeOf;
  const hasOwn = Object.prototype.hasOwnProperty;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const PromiseProto = Promise.prototype;
  const TypeErr = TypeError;
  const InternalErr = typeof InternalError === "function" ? InternalError : undefined;

  let now = 0; // ms since the epoch that Date reports during this call
  let seed = 1; // xorshift32 state during this call

  function hidden(obj, name, value) {
    defineProperty(obj, name, { value: value, writable: true, configurable: true, enumerable: false });
  }

  // Fixed clock. Date keeps RealDate's prototype so instanceof and every
  // method work, but its only link back to RealDate is this closure.
  const FixedDate = function Date(...args) {
    if (new.target === undefined) {
      return construct(RealDate, [now]).toString();
    }
    if (args.length === 0) {
      return construct(RealDate, [now], new.target);
    }
    return construct(RealDate, args, new.target);
  };
  defineProperty(FixedDate, "length", { value: 7, configurable: true });
  FixedDate.prototype = RealDate.prototype;
  defineProperty(FixedDate, "prototype", { writable: false, configurable: false });
  hidden(RealDate.prototype, "constructor", FixedDate);
  hidden(FixedDate, "now", function now_() { return now; });
  hidden(FixedDate, "parse", RealDate.parse);
  hidden(FixedDate, "UTC", RealDate.UTC);
  hidden(global, "Date", FixedDate);

  // Seeded xorshift32 (13, 17, 5).
  hidden(Math, "random", function random() {
    seed ^= seed << 13;
    seed >>>= 0;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    seed >>>= 0;
    return seed / 4294967296;
  });

  // No code from strings: eval is gone and every function constructor,
  // however it is reached, throws.
  const blocked = function Function() {
    throw new EvalError("code generation from strings is disabled in the JACE sandbox");
  };
  const kinds = [
    function () {},
    function* () {},
    async function () {},
    async function* () {},
  ];
  for (const k of kinds) {
    defineProperty(getPrototypeOf(k), "constructor", { value: blocked, writable: false, configurable: false, enumerable: false });
  }
  blocked.prototype = getPrototypeOf(kinds[0]);
  hidden(global, "Function", blocked);
  delete global.eval;

  // No timers, network, threads, host modules or GC-observable objects.
  for (const name of [
    "setTimeout", "setInterval", "setImmediate", "clearTimeout", "clearInterval",
    "clearImmediate", "queueMicrotask", "requestAnimationFrame", "fetch",
    "XMLHttpRequest", "WebSocket", "EventSource", "Worker", "SharedWorker",
    "Atomics", "SharedArrayBuffer", "WeakRef", "FinalizationRegistry",
    "performance", "std", "os", "print", "console", "gc", "scriptArgs",
  ]) {
    delete global[name];
  }

  function isInternal(e) {
    return InternalErr !== undefined && e instanceof InternalErr;
  }

  // call runs one module entry point. Strings in, one string out:
  //   "R<seed>\n<json>"  the entry point returned <json>; <seed> is the
  //                      generator state after the call
  //   "U"                no such action
  //   "X<message>"       the entry point returned something that is not JSON
  // An exception thrown by the module propagates to the host unchanged.
  function call(kind, name, stateJSON, paramsJSON, envJSON, nowMs, rngState) {
    now = nowMs;
    seed = (rngState >>> 0) || 1;
    const j = global.jace;
    if (j === null || (typeof j !== "object" && typeof j !== "function")) {
      throw new TypeErr("globalThis.jace is not an object");
    }
    let out;
    if (kind === "init") {
      out = j.init(parse(envJSON));
    } else if (kind === "view") {
      const st = parse(stateJSON);
      j.___state = st;
      out = j.view(st);
    } else {
      const acts = j.actions;
      const fn = acts !== null && typeof acts === "object" && hasOwn.call(acts, name) ? acts[name] : undefined;
      if (typeof fn !== "function") {
        return "U";
      }
      const st = parse(stateJSON);
      j.___state = st;
      out = fn.call(acts, st, parse(paramsJSON), parse(envJSON));
    }
    const t = typeof out;
    if (out === undefined || t === "function" || t === "symbol" || t === "bigint") {
      return "X" + kind + " returned " + (out === undefined ? "undefined" : "a " + t);
    }
    if (out !== null && t === "object" && getPrototypeOf(out) === PromiseProto) {
      return "X" + kind + " returned a Promise; entry points must be synchronous";
    }
    let s;
    try {
      // Plain JSON.stringify: nested functions, symbols and undefined are
      // omitted as JSON defines; top-level ones are refused above.
      s = stringify(out);
    } catch (e) {
      if (isInternal(e)) {
        throw e;
      }
      return "X" + kind + " returned a value that is not JSON: " + (e && e.message);
    }
    if (s === undefined) {
      return "X" + kind + " returned a value that is not JSON";
    }
    return "R" + seed + "\n" + s;
  }

  // shape reports what a loaded module lacks, as a JSON list of
  // problems (empty when the module has the required shape).
  function shape() {
    const problems = [];
    const j = global.jace;
    if (j === null || typeof j !== "object") {
      problems.push("globalThis.jace (an object)");
      return stringify({ problems: problems });
    }
    const m = j.manifest;
    // Each field is read once: a getter could answer differently on a
    // second read than on the one checked.
    let name = "", version = "";
    if (m === null || typeof m !== "object") {
      problems.push("manifest (an object with name and version)");
    } else {
      name = m.name;
      version = m.version;
      if (typeof name !== "string" || name === "") problems.push("manifest.name (a non-empty string)");
      if (typeof version !== "string" || version === "") problems.push("manifest.version (a non-empty string)");
    }
    if (typeof j.init !== "function") problems.push("init (a function)");
    if (typeof j.view !== "function") problems.push("view (a function)");
    const a = j.actions;
    const names = [];
    if (a === null || typeof a !== "object") {
      problems.push("actions (an object of functions)");
    } else {
      for (const k of Object.keys(a)) {
        if (typeof a[k] !== "function") problems.push("actions[" + stringify(k) + "] (a function)");
        else names.push(k);
      }
    }
    const ok = problems.length === 0;
    return stringify({
      problems: problems,
      name: ok ? name : "",
      version: ok ? version : "",
      actions: names,
    });
  }

  // The host keeps these two functions by reference; they are never
  // reachable from module code.
  return { call: call, shape: shape };
})(globalThis);
