globalThis.jace = {
  manifest: { name: "huge_output", version: "1" },
  init(env) { return { n: 0 }; },
  view(state) { return { n: state.n }; },
  actions: {
    ok(state) { return { state: { n: state.n + 1 }, audit_preview: "OK" }; },
    huge(state) { return { state, result: "x".repeat(3 << 20) }; },
    wide(state) { const a = []; for (let i = 0; i < 200000; i++) a.push({ i, pad: "0123456789" }); return { state, result: a }; },
  },
};
