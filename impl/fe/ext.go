package fe

import (
	"errors"
	"fmt"
)

// Primitive is a Go function callable from Lisp (a cfunc). args is the list
// of evaluated arguments. Returning a non-nil error raises a Lisp error: a
// *Raised error raises its structured error object, any other error raises
// its message. Inside a Primitive the VM's value methods (Car, Cons, ...)
// may be used; they raise Lisp errors themselves on bad input or when the
// arena is exhausted. A Primitive must leave the VM's Meter alone: the VM
// prices events lazily, and its owner may read or change the meter only
// between evaluations.
type Primitive func(vm *VM, args Value) (Value, error)

type primEntry struct {
	name string
	fn   Primitive
}

// Raised is returned by a Primitive to raise a structured error object
// (see MakeError and RaiseError).
type Raised struct {
	Obj Value
}

func (r *Raised) Error() string { return "fe: structured error raised" }

// Field is one keyword/value pair of a structured error.
type Field struct {
	Key   string // keyword name without the colon, e.g. "fn"
	Value Value
}

// guard runs f with errors converted and the GC stack restored.
func (vm *VM) guard(f func()) error {
	gc := vm.gcIdx
	err := vm.protect(f)
	vm.gcIdx = gc
	if err != nil {
		return err
	}
	return nil
}

// Do runs f, which may use the VM's value methods, converting a raised Lisp
// error into an *Error. Values made inside f are unprotected afterwards.
func (vm *VM) Do(f func() error) error {
	var ferr error
	if err := vm.guard(func() { ferr = f() }); err != nil {
		return err
	}
	return ferr
}

// RegisterPrimitive binds name globally to a new cfunc calling fn, and
// records doc for describe. It costs one cell plus the symbol if new.
func (vm *VM) RegisterPrimitive(name string, fn Primitive, doc string) error {
	if fn == nil {
		return fmt.Errorf("fe: register primitive %q: nil function", name)
	}
	err := vm.guard(func() { vm.registerPrim(name, fn, doc) })
	if err != nil {
		return fmt.Errorf("fe: register primitive %q: %w", name, err)
	}
	return nil
}

func (vm *VM) registerPrim(name string, fn Primitive, doc string) {
	sym := vm.symbol(name)
	v := vm.object()
	vm.cells[v.index()].typ = TCFunc
	vm.cells[v.index()].aux = int32(len(vm.prims))
	vm.prims = append(vm.prims, primEntry{name: name, fn: fn})
	vm.setGlobal(sym, v)
	if doc != "" {
		vm.docs[name] = doc
	}
}

// SetDoc records documentation text for name, returned by describe.
func (vm *VM) SetDoc(name, doc string) { vm.docs[name] = doc }

// Restrict binds name to a cfunc that always raises the structured error
// (error TAGS... :fn NAME :message MESSAGE). The name stays discoverable
// through describe when doc is given.
func (vm *VM) Restrict(name string, tags []string, message, doc string) error {
	tagsCopy := append([]string(nil), tags...)
	fn := func(vm *VM, args Value) (Value, error) {
		return Nil, vm.RaiseError(tagsCopy,
			Field{Key: "fn", Value: vm.Symbol(name)},
			Field{Key: "message", Value: vm.String(message)})
	}
	return vm.RegisterPrimitive(name, fn, doc)
}

// MakeError builds the list (error TAG... :KEY VALUE ...).
func (vm *VM) MakeError(tags []string, fields ...Field) Value {
	items := []Value{vm.symbol("error")}
	for _, t := range tags {
		items = append(items, vm.symbol(t))
	}
	for _, f := range fields {
		items = append(items, vm.keyword(f.Key), vm.own(f.Value))
	}
	return vm.List(items...)
}

// RaiseError builds a structured error object and returns it as a *Raised,
// ready to be returned from a Primitive.
func (vm *VM) RaiseError(tags []string, fields ...Field) error {
	return &Raised{Obj: vm.MakeError(tags, fields...)}
}

func (vm *VM) keyword(name string) Value {
	sym := vm.symbol(":" + name)
	return sym
}

// callPrimitive calls cfunc i, an index registerPrim gave (only it types a
// cell TCFunc; a macro's whole-cell copy keeps the index).
func (vm *VM) callPrimitive(i int, args Value) Value {
	res, err := vm.prims[i].fn(vm, args)
	if err == nil {
		return vm.own(res)
	}
	var r *Raised
	if errors.As(err, &r) {
		vm.pushgc(vm.own(r.Obj))
		vm.raise(&Error{Msg: vm.toString(r.Obj), Cause: err, obj: r.Obj, hasObj: true})
	}
	var e *Error
	if errors.As(err, &e) {
		vm.raise(&Error{Msg: e.Msg, Cause: err, abort: e.abort, obj: e.obj, hasObj: e.hasObj})
	}
	vm.raise(&Error{Msg: err.Error(), Cause: err})
	return Nil
}

// openExtensions binds the deck layer: eval, lambda, describe, type-of and
// try. Keywords self-evaluate through symbol().
func (vm *VM) openExtensions() {
	save := vm.gcIdx
	vm.setGlobal(vm.symbol("lambda"), vm.fnPrim)
	vm.registerPrim("eval", primEval, "(eval x) evaluates the value x in the global environment.")
	vm.registerPrim("describe", primDescribe, "(describe 'name) returns the documentation string of name, or nil.")
	vm.registerPrim("type-of", primTypeOf, "(type-of x) returns one of atom, cons, lambda, symbol, number, string, nil.")
	vm.registerPrim("try", primTry, "(try f) calls f with no arguments; if it raises, returns the error object instead.")
	vm.gcIdx = save // what the bindings made is reachable from their symbols
}

func primEval(vm *VM, args Value) (Value, error) {
	return vm.evalTop(vm.car(args), Nil), nil
}

func primDescribe(vm *VM, args Value) (Value, error) {
	v := vm.car(args)
	if vm.typ(v) != TSymbol {
		return Nil, nil
	}
	doc, ok := vm.docs[vm.symbolName(v)]
	if !ok {
		return Nil, nil
	}
	return vm.str(doc), nil
}

// TypeOf classifies v for the deck's ATOM key:
//
//	nil     the nil object, including a macro-made copy of it
//	cons    a pair
//	lambda  anything callable: func, macro, prim, cfunc
//	symbol  a symbol (keywords included)
//	number  a number
//	string  a string
//	atom    anything else (a ptr)
func (vm *VM) TypeOf(v Value) string {
	switch vm.typ(vm.own(v)) {
	case TNil:
		return "nil"
	case TPair:
		return "cons"
	case TFunc, TMacro, TPrim, TCFunc:
		return "lambda"
	case TSymbol:
		return "symbol"
	case TNumber:
		return "number"
	case TString:
		return "string"
	}
	return "atom"
}

func primTypeOf(vm *VM, args Value) (Value, error) {
	return vm.symbol(vm.TypeOf(vm.car(args))), nil
}

// primTry calls its argument with no arguments. A raised error (other than
// a meter abort) is caught: the GC stack and call list are restored and
// the error object is returned; built-in errors become
// (error fe-error :message "MSG").
func primTry(vm *VM, args Value) (Value, error) {
	f := vm.car(args)
	gc := vm.gcIdx
	depth := vm.ncall
	var res Value
	err := vm.protect(func() { res = vm.evalTop(vm.cons(f, Nil), Nil) })
	if err == nil {
		return res, nil
	}
	vm.gcIdx = gc
	vm.ncall = depth
	if err.abort {
		vm.raise(err)
	}
	if err.hasObj {
		// Like a result, the error object is rooted by the call that
		// receives it (evalPair pushes its result); nothing allocates
		// before that.
		return err.obj, nil
	}
	msg := vm.str(err.Msg)
	return vm.MakeError([]string{"fe-error"}, Field{Key: "message", Value: msg}), nil
}

// own checks a value coming from the host before the VM stores or follows
// it (see arena): a value that is not one of this VM's cells (past the
// last, or pointing inside one) is a programming error, reported with the
// value itself.
func (vm *VM) own(v Value) Value {
	if v%cellSize != 0 || uint(v.index()) > uint(vm.count) {
		panic(fmt.Sprintf("fe: value %d is not a cell of this VM (%d cells)", uint32(v), vm.count))
	}
	return v
}

// Value methods for primitives. They raise Lisp errors, so call them only
// from inside a Primitive or Do.

// Car returns the car of a pair (nil for nil).
func (vm *VM) Car(v Value) Value { return vm.car(vm.own(v)) }

// Cdr returns the cdr of a pair (nil for nil).
func (vm *VM) Cdr(v Value) Value { return vm.cdr(vm.own(v)) }

// Cons makes a pair.
func (vm *VM) Cons(car, cdr Value) Value { return vm.cons(vm.own(car), vm.own(cdr)) }

// Number makes a number.
func (vm *VM) Number(f float32) Value { return vm.number(f) }

// String makes a string.
func (vm *VM) String(s string) Value { return vm.str(s) }

// Symbol interns a symbol.
func (vm *VM) Symbol(name string) Value { return vm.symbol(name) }

// Bool returns t or nil.
func (vm *VM) Bool(b bool) Value { return vm.boolean(b) }

// List makes a proper list.
func (vm *VM) List(items ...Value) Value {
	res := Nil
	for i := len(items) - 1; i >= 0; i-- {
		res = vm.cons(vm.own(items[i]), res)
	}
	return res
}

// Type returns the object type of v.
func (vm *VM) Type(v Value) Type { return vm.typ(vm.own(v)) }

// ToNumber returns the number in v, raising "expected number, got T".
func (vm *VM) ToNumber(v Value) float32 { return vm.toNumber(vm.own(v)) }

// GoString returns the text of a string or the name of a symbol.
func (vm *VM) GoString(v Value) string {
	switch vm.typ(vm.own(v)) {
	case TString:
		return vm.goString(v)
	case TSymbol:
		return vm.symbolName(v)
	}
	vm.checkType(v, TString)
	return ""
}

// Print returns the printed form of v (strings raw at top level).
func (vm *VM) Print(v Value) string { return vm.toString(vm.own(v)) }

// Global returns the global value of name.
func (vm *VM) Global(name string) Value {
	return vm.cells[vm.cells[vm.symbol(name).index()].cdr.index()].cdr
}

// SetGlobal sets the global value of name.
func (vm *VM) SetGlobal(name string, v Value) { vm.setGlobal(vm.symbol(name), vm.own(v)) }
