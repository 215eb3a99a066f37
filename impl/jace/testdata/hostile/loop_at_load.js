globalThis.jace = {
  manifest: { name: "loop_at_load", version: "1" },
  init(env) { return { n: 0 }; },
  view(state) { return { n: state.n }; },
  actions: {
    ok(state) { return { state: { n: state.n + 1 }, audit_preview: "OK" }; },

  },
};
for (;;) {}
