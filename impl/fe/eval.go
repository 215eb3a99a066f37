package fe

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
	a := *arg
	vm.step(EvArg)
	if vm.typ(a) != TPair {
		if a == Nil {
			vm.fail("too few arguments")
		}
		vm.fail("dotted pair in argument list")
	}
	c := &vm.cells[a]
	*arg = c.cdr
	return c.car
}

func (vm *VM) toNumber(v Value) float32 {
	return vm.cells[vm.checkType(v, TNumber)].num
}

// getBound returns the env binding pair of sym, or its global pair.
func (vm *VM) getBound(sym, env Value) Value {
	for env != Nil {
		vm.step(EvLookup)
		x := vm.cells[env].car
		if vm.cells[x].car == sym {
			return x
		}
		env = vm.cells[env].cdr
	}
	return vm.cells[sym].cdr
}

func (vm *VM) equal(a, b Value) bool {
	if a == b {
		return true
	}
	ca, cb := &vm.cells[a], &vm.cells[b]
	if ca.typ != cb.typ {
		return false
	}
	switch ca.typ {
	case TNumber:
		return ca.num == cb.num
	case TString:
		for a != Nil {
			ca, cb := &vm.cells[a], &vm.cells[b]
			if ca.typ != cb.typ || ca.s != cb.s {
				return false
			}
			a, b = ca.cdr, cb.cdr
		}
		return a == b
	}
	return false
}

func (vm *VM) evalList(lst, env Value) Value {
	res := Nil
	tail := refNone
	for lst != Nil {
		v := vm.eval(vm.nextArg(&lst), env, nil)
		c := vm.cons(v, Nil)
		if tail == refNone {
			res = c
		} else {
			vm.cells[tail].cdr = c
		}
		tail = c
	}
	return res
}

func (vm *VM) doList(lst, env Value) Value {
	res := Nil
	save := vm.gcIdx
	for lst != Nil {
		vm.gcIdx = save
		vm.pushgc(lst)
		vm.pushgc(env)
		res = vm.eval(vm.nextArg(&lst), env, &env)
	}
	return res
}

func (vm *VM) argsToEnv(prm, arg, env Value) Value {
	for prm != Nil {
		if vm.typ(prm) != TPair {
			env = vm.cons(vm.cons(prm, arg), env)
			break
		}
		b := vm.cons(vm.cells[prm].car, vm.car(arg))
		env = vm.cons(b, env)
		prm = vm.cells[prm].cdr
		arg = vm.cdr(arg)
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

func (vm *VM) eval(obj, env Value, newenv *Value) Value {
	switch vm.cells[obj].typ {
	case TSymbol:
		vm.step(EvLookup)
		return vm.cells[vm.getBound(obj, env)].cdr
	case TPair:
	default:
		vm.step(EvAtom)
		return obj
	}
	vm.step(EvPair)

	vm.calllist = append(vm.calllist, obj)
	gc := vm.gcIdx
	fn := vm.eval(vm.cells[obj].car, env, nil)
	arg := vm.cells[obj].cdr
	res := Nil
	evalArg := func() Value { return vm.eval(vm.nextArg(&arg), env, nil) }

	switch fc := &vm.cells[fn]; fc.typ {
	case TPrim:
		switch op := int(fc.aux); op {
		case pLet:
			va := vm.checkType(vm.nextArg(&arg), TSymbol)
			if newenv != nil {
				b := vm.cons(va, evalArg())
				*newenv = vm.cons(b, env)
			}

		case pSet:
			va := vm.checkType(vm.nextArg(&arg), TSymbol)
			b := vm.getBound(va, env)
			vm.cells[b].cdr = evalArg()

		case pIf:
			for arg != Nil {
				va := evalArg()
				if va != Nil {
					if arg == Nil {
						res = va
					} else {
						res = evalArg()
					}
					break
				}
				if arg == Nil {
					break
				}
				arg = vm.cells[arg].cdr
			}

		case pFn, pMac:
			va := vm.cons(env, arg)
			vm.nextArg(&arg)
			res = vm.object()
			if op == pFn {
				vm.cells[res].typ = TFunc
			} else {
				vm.cells[res].typ = TMacro
			}
			vm.cells[res].cdr = va

		case pWhile:
			va := vm.nextArg(&arg)
			n := vm.gcIdx
			for vm.eval(va, env, nil) != Nil {
				vm.doList(arg, env)
				vm.gcIdx = n
			}

		case pQuote:
			res = vm.nextArg(&arg)

		case pAnd:
			for arg != Nil {
				if res = evalArg(); res == Nil {
					break
				}
			}

		case pOr:
			for arg != Nil {
				if res = evalArg(); res != Nil {
					break
				}
			}

		case pDo:
			res = vm.doList(arg, env)

		case pCons:
			va := evalArg()
			res = vm.cons(va, evalArg())

		case pCar:
			res = vm.car(evalArg())

		case pCdr:
			res = vm.cdr(evalArg())

		case pSetcar:
			va := vm.checkType(evalArg(), TPair)
			vm.cells[va].car = evalArg()

		case pSetcdr:
			va := vm.checkType(evalArg(), TPair)
			vm.cells[va].cdr = evalArg()

		case pList:
			res = vm.evalList(arg, env)

		case pNot:
			res = vm.boolean(evalArg() == Nil)

		case pIs:
			va := evalArg()
			res = vm.boolean(vm.equal(va, evalArg()))

		case pAtom:
			res = vm.boolean(vm.typ(evalArg()) != TPair)

		case pPrint:
			for arg != Nil {
				vm.scratch = vm.writeTo(vm.scratch[:0], evalArg(), false, -1)
				if arg != Nil {
					vm.scratch = append(vm.scratch, ' ')
				}
				vm.emit(vm.scratch)
			}
			vm.emit([]byte{'\n'})

		case pLt, pLte:
			va := vm.checkType(evalArg(), TNumber)
			vb := vm.checkType(evalArg(), TNumber)
			a, b := vm.cells[va].num, vm.cells[vb].num
			if op == pLt {
				res = vm.boolean(a < b)
			} else {
				res = vm.boolean(a <= b)
			}

		case pAdd, pSub, pMul, pDiv:
			x := vm.toNumber(evalArg())
			for arg != Nil {
				x = arith(op, x, vm.toNumber(evalArg()))
			}
			res = vm.number(x)
		}

	case TCFunc:
		res = vm.callPrimitive(int(fc.aux), vm.evalList(arg, env))

	case TFunc:
		vm.step(EvCall)
		arg = vm.evalList(arg, env)
		va := vm.cells[fn].cdr // (env params ...)
		vb := vm.cells[va].cdr // (params ...)
		body := vm.cells[vb].cdr
		res = vm.doList(body, vm.argsToEnv(vm.cells[vb].car, arg, vm.cells[va].car))

	case TMacro:
		va := vm.cells[fn].cdr
		vb := vm.cells[va].cdr
		r := vm.doList(vm.cells[vb].cdr, vm.argsToEnv(vm.cells[vb].car, arg, vm.cells[va].car))
		// Replace the call site with the expansion (a whole-cell copy) and
		// evaluate it again.
		vm.cells[obj] = vm.cells[r]
		vm.gcIdx = gc
		vm.calllist = vm.calllist[:len(vm.calllist)-1]
		return vm.eval(obj, env, nil)

	default:
		vm.fail("tried to call non-callable value")
	}

	vm.gcIdx = gc
	vm.pushgc(res)
	vm.calllist = vm.calllist[:len(vm.calllist)-1]
	return res
}
