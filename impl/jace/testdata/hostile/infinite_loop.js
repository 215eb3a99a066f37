globalThis.jace = {
  manifest: { name: "infinite_loop", version: "1" },
  init(env) { return { n: 0 }; },
  view(state) { return { n: state.n }; },
  actions: {
    ok(state) { return { state: { n: state.n + 1 }, audit_preview: "OK" }; },
    spin(state) { for (;;) {} },
    spinCatching(state) { for (;;) { try { for (;;) {} } catch (e) {} finally { continue; } } },
  },
};
