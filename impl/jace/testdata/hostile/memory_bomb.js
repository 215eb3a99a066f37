globalThis.jace = {
  manifest: { name: "memory_bomb", version: "1" },
  init(env) { return { n: 0 }; },
  view(state) { return { n: state.n }; },
  actions: {
    ok(state) { return { state: { n: state.n + 1 }, audit_preview: "OK" }; },
    bomb(state) { const a = []; for (;;) a.push("x".repeat(1 << 16) + a.length); },
    doubling(state) { let s = "x"; for (;;) s = s + s; },
  },
};
