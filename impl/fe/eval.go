package fe

//go:generate go run ./internal/quietgen

import "math"

// Primitive indices, in the order fe_open binds them.
const (
	pLet = iota
	pSet
	pIf
	pFn
	pMac
	pWhile
	pQuote
	pAnd
	pOr
	pDo
	pCons
	pCar
	pCdr
	pSetcar
	pSetcdr
	pList
	pNot
	pIs
	pAtom
	pPrint
	pLt
	pLte
	pAdd
	pSub
	pMul
	pDiv
)

// primNameList holds the primitive names in index order.
const primNameList = "let = if fn mac while quote and or do cons car cdr setcar setcdr list not is atom print < <= + - * /"

func (vm *VM) nextArg(arg *Value) Value {
	cells := vm.mem
	a := *arg
	vm.step(EvArg)
	c := cells.at(a)
	if c.typ != TPair {
		vm.argError(a)
	}
	*arg = c.cdr
	return c.car
}

// argError raises the error for a missing argument or a dotted list.
func (vm *VM) argError(a Value) {
	if a == Nil {
		vm.fail("too few arguments")
	}
	vm.fail("dotted pair in argument list")
}

func (vm *VM) toNumber(v Value) float32 {
	return vm.mem.at(vm.checkType(v, TNumber)).num
}

func (vm *VM) equal(a, b Value) bool {
	if a == b {
		return true
	}
	ca, cb := vm.mem.at(a), vm.mem.at(b)
	if ca.typ != cb.typ {
		return false
	}
	switch ca.typ {
	case TNumber:
		return ca.num == cb.num
	case TString:
		for a != Nil {
			ca, cb := vm.mem.at(a), vm.mem.at(b)
			if ca.typ != cb.typ || ca.s != cb.s {
				return false
			}
			a, b = ca.cdr, cb.cdr
		}
		return a == b
	}
	return false
}

// evalList evaluates each element of lst and returns the list of the
// values.
//
// In the quiet evaluator (eval_quiet.go: vm.quiet, so no event is ever
// observed) evalAtoms first takes the elements that are atoms or symbols
// while a free cell is at hand; the "quiet:" line that calls it is code in
// the quiet copy alone (see quietgen). Anything else, and every element
// with a meter, goes through the loop here, which is evalArg and cons
// written out.
func (vm *VM) evalList(lst, env Value) Value {
	cells := vm.mem
	res := Nil
	link := &res // where the next cell goes: res, then the last cell's cdr
	// quiet: lst = vm.evalAtoms(lst, env, &res, &link)
	for lst != Nil {
		// v := vm.evalArg(&lst, env), written out (list and the cfuncs
		// evaluate their arguments here; a user call has its own copy in
		// evalPair).
		vm.step(EvArg)
		lc := cells.at(lst)
		if lc.typ != TPair {
			vm.argError(lst)
		}
		obj := lc.car
		lst = lc.cdr
		var v Value
		switch cells.at(obj).typ {
		case TSymbol:
			// v = vm.lookup(obj, env), written out.
			n := uint64(1)
			if oc := cells.at(obj); !oc.local {
				// Bound in no environment (see cell): the global value, and
				// the walk's events without the walk.
				n += uint64(cells.at(env).envLen) // the static nil's is 0
				v = cells.at(oc.cdr).cdr
			} else {
				v = refNone
				for e := env; e != Nil; {
					n++
					ec := cells.at(e)
					if x := ec.car; cells.at(x).car == obj {
						v = cells.at(x).cdr
						break
					}
					e = ec.cdr
				}
				if v == refNone {
					v = cells.at(cells.at(obj).cdr).cdr
				}
			}
			vm.stepN(EvLookup, n)
		case TPair:
			v = vm.evalPair(obj, env, nil)
		default:
			vm.step(EvAtom)
			v = obj
		}
		// c := vm.cons(v, Nil), written out.
		c := vm.freelist
		if gs, gi := vm.gcstack, vm.gcIdx; c == Nil || vm.counts[EvAlloc] >= vm.thresh[EvAlloc] || uint(gi) >= uint(len(gs)) {
			c = vm.objectSlow()
		} else {
			vm.counts[EvAlloc]++
			vm.freelist = cells.at(c).cdr
			gs[gi] = c
			vm.gcIdx = gi + 1
		}
		cc := cells.at(c)
		cc.typ, cc.car, cc.cdr = TPair, v, Nil
		*link = c
		link = &cc.cdr
	}
	return res
}

// evalAtoms is evalList's first loop in the quiet evaluator, which alone
// calls it: it evaluates the leading elements of lst that are atoms or
// symbols while a free cell is at hand, links the list of their values at
// *res with *link at its last cell's cdr, and returns the rest of lst. It
// makes no Go call and nothing in it can raise, so its state stays in
// registers: the free list's head, the GC stack's index and the event
// counts are stored once, when it ends.
func (vm *VM) evalAtoms(lst, env Value, res *Value, link **Value) Value {
	cells := vm.mem
	// slots are the GC stack slots the loop may fill: one per free
	// cell at hand (the free list's head keeps the list's length; the
	// static nil's is 0), as many as the stack has room for. A free
	// cell's cdr already links it to the next one, which becomes the
	// next element's cell, so only the last cell's cdr is written.
	c, gs, gi := vm.freelist, vm.gcstack, vm.gcIdx
	slots := gs[gi : gi+min(int(cells.at(c).envLen), len(gs)-gi)]
	global := 1 + uint64(cells.at(env).envLen) // a global lookup's events
	last := Nil
	lookups, atoms := uint64(0), uint64(0)
	k := 0
	for ; k < len(slots) && lst != Nil; k++ {
		lc := cells.at(lst)
		if lc.typ != TPair {
			break
		}
		obj := lc.car
		v := obj
		switch oc := cells.at(obj); oc.typ {
		case TPair:
			goto done
		case TSymbol:
			// v = vm.lookup(obj, env), written out.
			if !oc.local {
				lookups += global
				v = cells.at(oc.cdr).cdr
				break
			}
			lookups++
			v = refNone
			for e := env; e != Nil; {
				lookups++
				ec := cells.at(e)
				if x := ec.car; cells.at(x).car == obj {
					v = cells.at(x).cdr
					break
				}
				e = ec.cdr
			}
			if v == refNone {
				v = cells.at(oc.cdr).cdr
			}
		default:
			atoms++
		}
		lst = lc.cdr
		// cons's fast path: slots say a free cell and a GC stack slot
		// are at hand.
		cc := cells.at(c)
		slots[k] = c
		cc.typ, cc.car = TPair, v
		last, c = c, cc.cdr
	}
done:
	if k > 0 {
		// The list's cells are the first k of the free list.
		*res = vm.freelist
		lc := cells.at(last)
		lc.cdr = Nil
		*link = &lc.cdr
		vm.freelist = c
		vm.gcIdx += k
		// One EvArg and one EvAlloc per element.
		vm.counts[EvArg] += uint64(k)
		vm.counts[EvAlloc] += uint64(k)
		vm.counts[EvLookup] += lookups
		vm.counts[EvAtom] += atoms
	}
	return lst
}

func (vm *VM) doList(lst, env Value) Value {
	cells := vm.mem
	res := Nil
	save := vm.gcIdx
	if lst == Nil {
		return res
	}
	// Each form is evaluated with lst and env pushed at save (C's gcIdx =
	// save; pushgc(lst); pushgc(env)): the room for the two is checked
	// once, and without it the first push already overflows.
	frame := vm.frame(save)
	for lst != Nil {
		frame[0], frame[1] = lst, env
		vm.gcIdx = save + 2
		// x := vm.nextArg(&lst), written out.
		vm.step(EvArg)
		lc := cells.at(lst)
		if lc.typ != TPair {
			vm.argError(lst)
		}
		x := lc.car
		lst = lc.cdr
		// A pair goes straight to evalPair, as eval would send it.
		if cells.at(x).typ == TPair {
			res = vm.evalPair(x, env, &env)
		} else {
			res = vm.eval(x, env, &env)
		}
	}
	return res
}

func (vm *VM) argsToEnv(prm, arg, env Value) Value {
	cells := vm.mem
	n := cells.at(env).envLen // the static nil's is 0
	for prm != Nil {
		pc := cells.at(prm)
		if pc.typ != TPair {
			e := vm.cons(vm.cons(prm, arg), env)
			cells.at(prm).local = true
			cells.at(e).envLen = n + 1
			env = e
			break
		}
		// car(arg) and cdr(arg), written out.
		a, rest := arg, arg
		if arg != Nil {
			ac := cells.at(arg)
			if ac.typ != TPair {
				vm.typeError(arg, TPair)
			}
			a, rest = ac.car, ac.cdr
		}
		// env = vm.cons(vm.cons(pc.car, a), env), written out.
		var b, e Value
		if f, gs, gi := vm.freelist, vm.gcstack, vm.gcIdx; f != Nil && cells.at(f).cdr != Nil && vm.counts[EvAlloc]+1 < vm.thresh[EvAlloc] && uint(gi) < uint(len(gs)) && uint(gi+1) < uint(len(gs)) {
			// Two free cells at hand, no event to observe, room for
			// both on the GC stack: cons's fast path twice.
			b, e = f, cells.at(f).cdr
			vm.counts[EvAlloc] += 2
			vm.freelist = cells.at(e).cdr
			gs[gi] = b
			gs[gi+1] = e
			vm.gcIdx = gi + 2
			bc, ec := cells.at(b), cells.at(e)
			bc.typ, bc.car, bc.cdr = TPair, pc.car, a
			ec.typ, ec.car, ec.cdr = TPair, b, env
		} else {
			b = vm.cons(pc.car, a)
			e = vm.cons(b, env)
		}
		n++
		cells.at(e).envLen = n
		if c := cells.at(pc.car); !c.local {
			c.local = true // once: the symbol stays in the cache unwritten
		}
		env = e
		prm = pc.cdr
		arg = rest
	}
	return env
}

// arith applies one float32 operation the way x86 SSE does, so that NaN
// sign bits match the reference build: a NaN operand propagates (the first
// one if both are NaN), and an invalid operation yields the default NaN,
// which has the sign bit set.
func arith(op int, a, b float32) float32 {
	var r float32
	switch op {
	case pAdd:
		r = a + b
	case pSub:
		r = a - b
	case pMul:
		r = a * b
	default:
		r = a / b
	}
	if r == r {
		return r
	}
	const quiet = 0x00400000
	switch {
	case a != a:
		return math.Float32frombits(math.Float32bits(a) | quiet)
	case b != b:
		return math.Float32frombits(math.Float32bits(b) | quiet)
	}
	return math.Float32frombits(0xffc00000)
}

// eval evaluates obj in env. It handles symbols and self-evaluating atoms
// itself and leaves pairs to evalPair, so the frequent cases do not pay for
// evalPair's large stack frame.
func (vm *VM) eval(obj, env Value, newenv *Value) Value {
	switch vm.mem.at(obj).typ {
	case TSymbol:
		return vm.lookup(obj, env)
	case TPair:
		return vm.evalPair(obj, env, newenv)
	}
	vm.step(EvAtom)
	return obj
}

// lookup is C's cdr(getbound(sym, env)), the value of a symbol, including the
// EvLookup event of the symbol evaluation itself. The walk has no effect
// but its events, so they are tallied in a register and added at once
// (see stepN, which replays them one by one when the meter must see
// them).
func (vm *VM) lookup(sym, env Value) Value {
	cells := vm.mem
	sc := cells.at(sym)
	if !sc.local {
		// Bound in no environment (see cell): the walk's events without
		// the walk, and the global value.
		n := 1 + uint64(cells.at(env).envLen) // the static nil's is 0
		vm.stepN(EvLookup, n)
		return cells.at(sc.cdr).cdr
	}
	n := uint64(1)
	for e := env; e != Nil; {
		n++
		ec := cells.at(e)
		if x := ec.car; cells.at(x).car == sym {
			vm.stepN(EvLookup, n)
			return cells.at(x).cdr
		}
		e = ec.cdr
	}
	vm.stepN(EvLookup, n)
	return cells.at(sc.cdr).cdr
}

// evalArg is eval(nextArg(arg), env, nil), the commonest step of the
// interpreter, with nextArg, the symbol lookup and the atom case written
// out in place: it saves two Go calls per argument. The events and their
// order are exactly those of nextArg followed by eval.
func (vm *VM) evalArg(arg *Value, env Value) Value {
	cells := vm.mem
	a := *arg
	vm.step(EvArg)
	ac := cells.at(a)
	if ac.typ != TPair {
		vm.argError(a)
	}
	*arg = ac.cdr
	obj := ac.car
	switch cells.at(obj).typ {
	case TSymbol:
		// lookup, written out.
		oc := cells.at(obj)
		if !oc.local {
			n := 1 + uint64(cells.at(env).envLen)
			vm.stepN(EvLookup, n)
			return cells.at(oc.cdr).cdr
		}
		n := uint64(1)
		for e := env; e != Nil; {
			n++
			ec := cells.at(e)
			if x := ec.car; cells.at(x).car == obj {
				vm.stepN(EvLookup, n)
				return cells.at(x).cdr
			}
			e = ec.cdr
		}
		vm.stepN(EvLookup, n)
		return cells.at(oc.cdr).cdr
	case TPair:
		return vm.evalPair(obj, env, nil)
	}
	vm.step(EvAtom)
	return obj
}

// evalPair is the pair case of eval: a call.
func (vm *VM) evalPair(obj, env Value, newenv *Value) Value {
	cells := vm.mem
	vm.step(EvPair)

	// Nested calls always leave the call list and the GC stack as they
	// found them (or unwind with a panic), so both are restored below from
	// the depths saved here. The call list only feeds the traceback, which
	// only `fe FILE` prints, and that runs without a meter: the lines
	// marked "trace:" are code in the quiet copy alone (see quietgen).
	// trace: depth := vm.ncall
	// trace: if uint(depth) < uint(len(vm.calls)) {
	// trace: 	vm.calls[depth] = obj
	// trace: } else {
	// trace: 	vm.callsDeep = append(vm.callsDeep[:depth-len(vm.calls)], obj)
	// trace: }
	// trace: vm.ncall = depth + 1
	gc := vm.gcIdx
	// The operator is nearly always a symbol: look it up here rather than
	// through eval (same events, one Go call fewer).
	// The arguments are read with the operator where it is a symbol, whose
	// lookup changes no cell; another operator form is evaluated first (it
	// may run code), as in C.
	oc := cells.at(obj)
	fn, arg := oc.car, oc.cdr
	if cells.at(fn).typ != TSymbol {
		fn, arg = vm.evalOperator(obj, env)
	} else {
		// lookup, written out, with the global case first.
		sym, n := fn, uint64(1)
		if sc := cells.at(sym); !sc.local {
			n += uint64(cells.at(env).envLen) // the static nil's is 0
			fn = cells.at(sc.cdr).cdr
		} else {
			fn = refNone
			for e := env; e != Nil; {
				n++
				ec := cells.at(e)
				if x := ec.car; cells.at(x).car == sym {
					fn = cells.at(x).cdr
					break
				}
				e = ec.cdr
			}
			if fn == refNone {
				fn = cells.at(sc.cdr).cdr
			}
		}
		vm.stepN(EvLookup, n)
	}
	res := Nil

	// In the three hottest primitives (if, the comparisons and the
	// arithmetic) each evalArg call is written out in place, which saves a
	// Go call per argument: about a tenth of the run time of a call-heavy
	// program. Each copy is exactly evalArg. The operator's type is tested
	// in order, primitives first, then user functions (a switch on the type
	// compiles to a search that spends two more tests on a primitive).
	switch fc := cells.at(fn); {
	case fc.typ == TPrim:
		switch op := int(fc.aux); op {
		case pLet:
			va := vm.checkType(vm.nextArg(&arg), TSymbol)
			if newenv != nil {
				b := vm.cons(va, vm.evalArg(&arg, env))
				e := vm.cons(b, env)
				cells.at(va).local = true
				cells.at(e).envLen = cells.at(env).envLen + 1
				*newenv = e
			}

		case pSet:
			// va := vm.checkType(vm.nextArg(&arg), TSymbol), written out.
			vm.step(EvArg)
			ac := cells.at(arg)
			if ac.typ != TPair {
				vm.argError(arg)
			}
			va := ac.car
			arg = ac.cdr
			if cells.at(va).typ != TSymbol {
				vm.typeError(va, TSymbol)
			}
			// b := the binding pair of va (C's getbound), written out.
			b := refNone
			if !cells.at(va).local {
				vm.stepN(EvLookup, uint64(cells.at(env).envLen))
			} else {
				for e := env; e != Nil; e = cells.at(e).cdr {
					vm.step(EvLookup)
					if x := cells.at(e).car; cells.at(x).car == va {
						b = x
						break
					}
				}
			}
			if b == refNone {
				b = cells.at(va).cdr
			}
			// v := vm.evalArg(&arg, env), written out.
			vm.step(EvArg)
			ac = cells.at(arg)
			if ac.typ != TPair {
				vm.argError(arg)
			}
			arg = ac.cdr
			var v Value
			switch x := ac.car; cells.at(x).typ {
			case TPair:
				v = vm.evalPair(x, env, nil)
			case TSymbol:
				v = vm.lookup(x, env)
			default:
				vm.step(EvAtom)
				v = x
			}
			cells.at(b).cdr = v

		case pIf:
			for arg != Nil {
				var va Value
				{ // va = vm.evalArg(&arg, env), written out
					a := arg
					vm.step(EvArg)
					ac := cells.at(a)
					if ac.typ != TPair {
						vm.argError(a)
					}
					arg = ac.cdr
					switch obj := ac.car; cells.at(obj).typ {
					case TSymbol:
						va = vm.lookup(obj, env)
					case TPair:
						va = vm.evalPair(obj, env, nil)
					default:
						vm.step(EvAtom)
						va = obj
					}
				}
				if va != Nil {
					if arg == Nil {
						res = va
						break
					}
					// res = vm.evalArg(&arg, env), written out.
					a := arg
					vm.step(EvArg)
					ac := cells.at(a)
					if ac.typ != TPair {
						vm.argError(a)
					}
					arg = ac.cdr
					switch x := ac.car; cells.at(x).typ {
					case TPair:
						res = vm.evalPair(x, env, nil)
					case TSymbol:
						res = vm.lookup(x, env)
					default:
						vm.step(EvAtom)
						res = x
					}
					break
				}
				if arg == Nil {
					break
				}
				arg = cells.at(arg).cdr
			}

		case pFn, pMac, pAnd, pOr, pSetcar, pSetcdr, pIs, pAtom, pPrint:
			res = vm.evalPrim(op, arg, env)

		case pWhile:
			va := vm.nextArg(&arg)
			n := vm.gcIdx
			for {
				// vm.eval(va, env, nil), with a call sent straight to
				// evalPair.
				var c Value
				if cells.at(va).typ == TPair {
					c = vm.evalPair(va, env, nil)
				} else {
					c = vm.eval(va, env, nil)
				}
				if c == Nil {
					break
				}
				vm.doList(arg, env)
				vm.gcIdx = n
			}

		case pQuote:
			res = vm.nextArg(&arg)

		case pDo:
			res = vm.doList(arg, env)

		case pCons:
			va := vm.evalArg(&arg, env)
			vb := vm.evalArg(&arg, env)
			// res = vm.cons(va, vb), written out. Nothing allocates
			// before evalPair roots res below, so the fast path leaves
			// the GC stack alone (its room is still checked, so that a
			// full stack overflows here, as in C).
			if c, gi := vm.freelist, vm.gcIdx; c == Nil || vm.counts[EvAlloc] >= vm.thresh[EvAlloc] || uint(gi) >= uint(len(vm.gcstack)) {
				res = vm.objectSlow()
			} else {
				vm.counts[EvAlloc]++
				vm.freelist = cells.at(c).cdr
				res = c
			}
			rc := cells.at(res)
			rc.typ, rc.car, rc.cdr = TPair, va, vb

		case pCar:
			// res = vm.car(vm.evalArg(&arg, env)), written out.
			if va := vm.evalArg(&arg, env); va != Nil {
				if cells.at(va).typ != TPair {
					vm.typeError(va, TPair)
				}
				res = cells.at(va).car
			}

		case pCdr:
			if va := vm.evalArg(&arg, env); va != Nil {
				if cells.at(va).typ != TPair {
					vm.typeError(va, TPair)
				}
				res = cells.at(va).cdr
			}

		case pList:
			res = vm.evalList(arg, env)

		case pNot:
			res = vm.boolean(vm.evalArg(&arg, env) == Nil)

		case pLt, pLte:
			var va Value
			{ // va = vm.evalArg(&arg, env), written out
				a := arg
				vm.step(EvArg)
				ac := cells.at(a)
				if ac.typ != TPair {
					vm.argError(a)
				}
				arg = ac.cdr
				switch obj := ac.car; cells.at(obj).typ {
				case TSymbol:
					// va = vm.lookup(obj, env), written out.
					n, e := uint64(1), env
					if !cells.at(obj).local {
						n += uint64(cells.at(env).envLen)
						e = Nil
					}
					va = refNone
					for e != Nil {
						n++
						ec := cells.at(e)
						if x := ec.car; cells.at(x).car == obj {
							va = cells.at(x).cdr
							break
						}
						e = ec.cdr
					}
					if va == refNone {
						va = cells.at(cells.at(obj).cdr).cdr
					}
					vm.stepN(EvLookup, n)
				case TPair:
					va = vm.evalPair(obj, env, nil)
				default:
					vm.step(EvAtom)
					va = obj
				}
			}
			if cells.at(va).typ != TNumber {
				vm.typeError(va, TNumber)
			}
			var vb Value
			{ // vb = vm.evalArg(&arg, env), written out
				a := arg
				vm.step(EvArg)
				ac := cells.at(a)
				if ac.typ != TPair {
					vm.argError(a)
				}
				// (no more arguments are read: the rest is ignored)
				switch obj := ac.car; cells.at(obj).typ {
				case TSymbol:
					// vb = vm.lookup(obj, env), written out.
					n, e := uint64(1), env
					if !cells.at(obj).local {
						n += uint64(cells.at(env).envLen)
						e = Nil
					}
					vb = refNone
					for e != Nil {
						n++
						ec := cells.at(e)
						if x := ec.car; cells.at(x).car == obj {
							vb = cells.at(x).cdr
							break
						}
						e = ec.cdr
					}
					if vb == refNone {
						vb = cells.at(cells.at(obj).cdr).cdr
					}
					vm.stepN(EvLookup, n)
				case TPair:
					vb = vm.evalPair(obj, env, nil)
				default:
					vm.step(EvAtom)
					vb = obj
				}
			}
			if cells.at(vb).typ != TNumber {
				vm.typeError(vb, TNumber)
			}
			a, b := cells.at(va).num, cells.at(vb).num
			if op == pLt {
				res = vm.boolean(a < b)
			} else {
				res = vm.boolean(a <= b)
			}

		case pAdd, pSub, pMul, pDiv:
			var xv Value
			{ // xv = vm.evalArg(&arg, env), written out
				a := arg
				vm.step(EvArg)
				ac := cells.at(a)
				if ac.typ != TPair {
					vm.argError(a)
				}
				arg = ac.cdr
				switch obj := ac.car; cells.at(obj).typ {
				case TSymbol:
					// xv = vm.lookup(obj, env), written out.
					n, e := uint64(1), env
					if !cells.at(obj).local {
						n += uint64(cells.at(env).envLen)
						e = Nil
					}
					xv = refNone
					for e != Nil {
						n++
						ec := cells.at(e)
						if x := ec.car; cells.at(x).car == obj {
							xv = cells.at(x).cdr
							break
						}
						e = ec.cdr
					}
					if xv == refNone {
						xv = cells.at(cells.at(obj).cdr).cdr
					}
					vm.stepN(EvLookup, n)
				case TPair:
					xv = vm.evalPair(obj, env, nil)
				default:
					vm.step(EvAtom)
					xv = obj
				}
			}
			// x := vm.toNumber(xv), written out: it is over the
			// compiler's inlining budget, like most callees here.
			if cells.at(xv).typ != TNumber {
				vm.typeError(xv, TNumber)
			}
			x := cells.at(xv).num
			for arg != Nil {
				var yv Value
				{ // yv = vm.evalArg(&arg, env), written out
					a := arg
					vm.step(EvArg)
					ac := cells.at(a)
					if ac.typ != TPair {
						vm.argError(a)
					}
					arg = ac.cdr
					switch obj := ac.car; cells.at(obj).typ {
					case TSymbol:
						// yv = vm.lookup(obj, env), written out.
						n, e := uint64(1), env
						if !cells.at(obj).local {
							n += uint64(cells.at(env).envLen)
							e = Nil
						}
						yv = refNone
						for e != Nil {
							n++
							ec := cells.at(e)
							if x := ec.car; cells.at(x).car == obj {
								yv = cells.at(x).cdr
								break
							}
							e = ec.cdr
						}
						if yv == refNone {
							yv = cells.at(cells.at(obj).cdr).cdr
						}
						vm.stepN(EvLookup, n)
					case TPair:
						yv = vm.evalPair(obj, env, nil)
					default:
						vm.step(EvAtom)
						yv = obj
					}
				}
				if cells.at(yv).typ != TNumber { // y := vm.toNumber(yv)
					vm.typeError(yv, TNumber)
				}
				y := cells.at(yv).num
				// The common cases inline; arith also fixes NaN signs.
				var r float32
				switch op {
				case pAdd:
					r = x + y
				case pSub:
					r = x - y
				case pMul:
					r = x * y
				default:
					r = x / y
				}
				if r != r {
					r = arith(op, x, y)
				}
				x = r
			}
			// res = vm.number(x), written out, leaving the GC stack to
			// evalPair as cons does above.
			if v, gi := vm.freelist, vm.gcIdx; v == Nil || vm.counts[EvAlloc] >= vm.thresh[EvAlloc] || uint(gi) >= uint(len(vm.gcstack)) {
				res = vm.objectSlow()
			} else {
				vm.counts[EvAlloc]++
				vm.freelist = cells.at(v).cdr
				res = v
			}
			rc := cells.at(res)
			rc.typ = TNumber
			rc.num = x
		}

	case fc.typ == TFunc:
		vm.step(EvCall)
		{ // arg = vm.evalList(arg, env), written out.
			list := Nil
			tail := refNone
			for lst := arg; lst != Nil; {
				// v := vm.evalArg(&lst, env), written out: every user call
				// evaluates its arguments here.
				vm.step(EvArg)
				lc := cells.at(lst)
				if lc.typ != TPair {
					vm.argError(lst)
				}
				obj := lc.car
				lst = lc.cdr
				var v Value
				switch cells.at(obj).typ {
				case TSymbol:
					// v = vm.lookup(obj, env), written out.
					n, e := uint64(1), env
					if !cells.at(obj).local {
						n += uint64(cells.at(env).envLen)
						e = Nil
					}
					v = refNone
					for e != Nil {
						n++
						ec := cells.at(e)
						if x := ec.car; cells.at(x).car == obj {
							v = cells.at(x).cdr
							break
						}
						e = ec.cdr
					}
					if v == refNone {
						v = cells.at(cells.at(obj).cdr).cdr
					}
					vm.stepN(EvLookup, n)
				case TPair:
					v = vm.evalPair(obj, env, nil)
				default:
					vm.step(EvAtom)
					v = obj
				}
				// c := vm.cons(v, Nil), written out.
				c := vm.freelist
				if gs, gi := vm.gcstack, vm.gcIdx; c == Nil || vm.counts[EvAlloc] >= vm.thresh[EvAlloc] || uint(gi) >= uint(len(gs)) {
					c = vm.objectSlow()
				} else {
					vm.counts[EvAlloc]++
					vm.freelist = cells.at(c).cdr
					gs[gi] = c
					vm.gcIdx = gi + 1
				}
				cc := cells.at(c)
				cc.typ, cc.car, cc.cdr = TPair, v, Nil
				if tail == refNone {
					list = c
				} else {
					cells.at(tail).cdr = c
				}
				tail = c
			}
			arg = list
		}
		va := cells.at(fn).cdr // (env params ...)
		vb := cells.at(va).cdr // (params ...)
		body := cells.at(vb).cdr
		fenv := vm.argsToEnv(cells.at(vb).car, arg, cells.at(va).car)
		// res = doList(body, fenv), written out (every user call runs its
		// body here), with the body forms that are calls sent straight to
		// evalPair rather than through eval.
		save := vm.gcIdx
		var frame *[2]Value
		if body != Nil {
			frame = vm.frame(save)
		}
		for body != Nil {
			frame[0], frame[1] = body, fenv
			vm.gcIdx = save + 2
			// x := vm.nextArg(&body), written out.
			vm.step(EvArg)
			bc := cells.at(body)
			if bc.typ != TPair {
				vm.argError(body)
			}
			x := bc.car
			body = bc.cdr
			if cells.at(x).typ == TPair {
				res = vm.evalPair(x, fenv, &fenv)
			} else {
				res = vm.eval(x, fenv, &fenv)
			}
		}

	case fc.typ == TCFunc:
		res = vm.callPrimitive(int(fc.aux), vm.evalList(arg, env))

	case fc.typ == TMacro:
		vm.expandMacro(obj, fn, arg)
		vm.gcIdx = gc
		// trace: vm.ncall--
		return vm.eval(obj, env, nil)

	default:
		vm.fail("tried to call non-callable value")
	}

	// gcIdx = gc; pushgc(res), with the index in a register.
	if uint(gc) < uint(len(vm.gcstack)) {
		vm.gcstack[gc] = res
		vm.gcIdx = gc + 1
	} else {
		vm.gcIdx = gc
		vm.pushgc(res)
	}
	// trace: vm.ncall-- // back to depth: the nested calls restored it
	return res
}

// evalPrim evaluates the primitives that evalPair leaves out of its own
// body, being rare in loops: keeping evalPair small keeps its compiled code
// tight (fewer spills around its calls).
func (vm *VM) evalPrim(op int, arg, env Value) Value {
	cells := vm.mem
	res := Nil
	switch op {
	case pFn, pMac:
		va := vm.cons(env, arg)
		vm.nextArg(&arg)
		res = vm.object()
		if op == pFn {
			cells.at(res).typ = TFunc
		} else {
			cells.at(res).typ = TMacro
		}
		cells.at(res).cdr = va

	case pAnd:
		for arg != Nil {
			if res = vm.evalArg(&arg, env); res == Nil {
				break
			}
		}

	case pOr:
		for arg != Nil {
			if res = vm.evalArg(&arg, env); res != Nil {
				break
			}
		}

	case pSetcar:
		va := vm.checkType(vm.evalArg(&arg, env), TPair)
		cells.at(va).car = vm.evalArg(&arg, env)

	case pSetcdr:
		va := vm.checkType(vm.evalArg(&arg, env), TPair)
		cells.at(va).cdr = vm.evalArg(&arg, env)

	case pIs:
		va := vm.evalArg(&arg, env)
		res = vm.boolean(vm.equal(va, vm.evalArg(&arg, env)))

	case pAtom:
		res = vm.boolean(vm.typ(vm.evalArg(&arg, env)) != TPair)

	case pPrint:
		vm.print(arg, env)
	}
	return res
}

// evalOperator evaluates the operator of the call obj when it is not a
// symbol, and then reads the call's arguments.
func (vm *VM) evalOperator(obj, env Value) (fn, arg Value) {
	fn = vm.eval(vm.mem.at(obj).car, env, nil)
	return fn, vm.mem.at(obj).cdr
}

// print is the print primitive: its arguments evaluated and written raw,
// separated by spaces, then a newline.
func (vm *VM) print(arg, env Value) {
	for arg != Nil {
		vm.scratch = vm.writeTo(vm.scratch[:0], vm.evalArg(&arg, env), false)
		if arg != Nil {
			vm.scratch = append(vm.scratch, ' ')
		}
		vm.emit(vm.scratch)
	}
	vm.emit([]byte{'\n'})
}

// expandMacro runs macro fn on the unevaluated arguments arg and replaces
// the call site obj with the expansion (a whole-cell copy, as in C).
func (vm *VM) expandMacro(obj, fn, arg Value) {
	va := vm.cells[fn.index()].cdr
	vb := vm.cells[va.index()].cdr
	r := vm.doList(vm.cells[vb.index()].cdr, vm.argsToEnv(vm.cells[vb.index()].car, arg, vm.cells[va.index()].car))
	// A whole-cell copy, except that local stays set if it was (see cell).
	local := vm.cells[obj.index()].local
	vm.cells[obj.index()] = vm.cells[r.index()]
	vm.cells[obj.index()].local = vm.cells[obj.index()].local || local
}
