globalThis.jace = {
  manifest: { name: "real_clock", version: "1" },
  init(env) { return { n: 0 }; },
  view(state) { return { n: state.n }; },
  actions: {
    ok(state) { return { state: { n: state.n + 1 }, audit_preview: "OK" }; },
    clocks(state, params, env) {
      const viaProto = new (Object.getPrototypeOf(new Date()).constructor)().getTime();
      const viaCtor = new (new Date().constructor)().getTime();
      const viaReflect = Reflect.construct(Date, []).getTime();
      class Sub extends Date {}
      return { state, result: { now: Date.now(), zero: new Date().getTime(), str: Date(), viaProto, viaCtor, viaReflect, sub: new Sub().getTime(), iso: new Date().toISOString(), random: [Math.random(), Math.random()] } };
    },
  },
};
