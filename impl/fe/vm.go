package fe

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"unsafe"
)

// Type is an object type, numbered as in the C implementation.
type Type uint8

// Object types. The numbers are part of the C tag byte and of the
// "expected T1, got T2" messages through their names.
const (
	TPair Type = iota
	TFree
	TNil
	TNumber
	TSymbol
	TString
	TFunc
	TMacro
	TPrim
	TCFunc
	TPtr
)

// typeNameList holds the type names in type-number order.
const typeNameList = "pair free nil number symbol string func macro prim cfunc ptr"

// String returns the name the interpreter uses in error messages.
func (t Type) String() string {
	if names := strings.Fields(typeNameList); int(t) < len(names) {
		return names[t]
	}
	return fmt.Sprintf("type(%d)", uint8(t))
}

// Value is a handle to an object: the byte offset of its cell in the VM's
// cell array (its index times cellSize), so that the evaluator reaches a
// cell with one addition (see arena). Nil is the static nil object, the
// first cell, which lives outside the arena. A Value is only
// valid while the object is reachable from a GC root; values handed to a
// Primitive stay valid for the duration of the call.
type Value uint32

// Nil is the nil object.
const Nil Value = 0

// Sentinels used only inside the reader; they are never stored in a cell
// that Lisp code can reach.
const (
	refRParen Value = 1<<32 - 1
	refNone   Value = 1<<32 - 2
)

// cell is one arena object. For a pair, car and cdr are object references.
// For other types the fields mirror the C union layout closely enough that a
// whole-cell copy (used by macro expansion) has the same effect as in C:
// strings keep their bytes in s and the next chunk in cdr, symbols keep their
// (name . value) pair in cdr, numbers keep the float in num, primitives and
// cfuncs keep an index in aux. A free cell links to the next free cell
// through cdr, and that stale link survives allocation exactly as in C. A
// cell is typed TFree only until it is first allocated: nothing reads the
// type of a free cell, so the sweep leaves a freed cell's type stale.
//
// Two fields have no counterpart in C; they let a lookup skip walking an
// environment it cannot find the symbol in, while counting the same
// events. envLen is set on every environment cell (a (binding . env) pair
// made by argsToEnv or let) to the length of the environment list it
// heads. local is set on every object that becomes the car of a binding
// and cleared only when symbol makes a fresh symbol in a cell from the free
// list, which no live binding can reference; so a symbol without local is
// bound in no environment, and its lookup in env walks envLen steps to its
// global value. A free cell uses envLen too, for the length of the free
// list from it on, so that the free count needs no update per allocation;
// whatever a new cell's envLen then holds is read only if it becomes an
// environment cell, which sets it.
type cell struct {
	car, cdr Value
	num      float32
	aux      int32
	envLen   uint32
	typ      Type
	mark     bool
	local    bool
	s        [7]byte
}

// cellSize is the size of a cell in bytes: the distance between the Values
// of two neighbouring cells.
const cellSize = Value(unsafe.Sizeof(cell{}))

// maxCells bounds the arena: the cell array (the static nil and the
// arena's cells) may span at most refNone bytes, so that every Value stays
// below the reader's sentinels; an arena of maxCells cells or more is
// refused.
const maxCells = int(refNone / cellSize)

// valueOf returns the Value of cells[i].
func valueOf(i int) Value { return Value(i) * cellSize }

// index returns the position of v's cell in the cell array.
func (v Value) index() int { return int(v / cellSize) }

// arena addresses the cells of a VM without a bounds check: the interpreter
// touches a cell a few dozen times per evaluated pair, and the check costs
// about an eighth of its instructions. It is sound because every Value the
// VM stores or follows is below len(cells): the VM makes values only from
// its own cells, the reader's two sentinels are never followed, and a value
// coming from the host (a Primitive's result, the arguments of Cons, List,
// SetGlobal and the other value methods) is checked by own on its way in.
type arena struct{ base unsafe.Pointer }

// at returns the cell of v, whose index must be below len(cells): v is
// its byte offset.
func (a arena) at(v Value) *cell {
	return (*cell)(unsafe.Add(a.base, uintptr(v)))
}

// Event is one interpreter event of the deck cycle model (fe-deck.md 3.3).
type Event uint8

// Events, in the order of the cycle-model table.
const (
	EvPair   Event = iota // one eval of a pair
	EvArg                 // one argument fetched (fe_nextarg)
	EvLookup              // one symbol evaluation, plus one per env step walked
	EvCall                // a user fn call (evallist, argstoenv, body setup)
	EvAtom                // eval of a self-evaluating atom
	EvAlloc               // one cell allocated
	EvMark                // one cell marked by the collector
	EvSweep               // one cell visited by the sweep
	NumEvents
)

// String returns a short name for the event.
func (e Event) String() string {
	if names := strings.Fields("pair arg lookup call atom alloc mark sweep"); int(e) < len(names) {
		return names[e]
	}
	return fmt.Sprintf("event(%d)", uint8(e))
}

// Meter prices the interpreter's events: after each event the VM adds
// Costs[ev] to Total, and the first time Total exceeds Limit it sets Limit
// to the maximum (so the abort is not repeated) and aborts the evaluation
// in progress with a Lisp error carrying Err's message, which try cannot
// catch; the VM stays usable. An abort that falls inside a collection takes
// effect as soon as the collection has finished, so the heap is never left
// half-swept. The meter is read and written by the VM directly, with no
// function call per event; its owner may change Total and Limit between
// evaluations.
type Meter struct {
	Costs [NumEvents]uint64
	Total uint64
	Limit uint64
	Err   error // the abort's cause; nil means ErrMeterLimit
}

// ErrMeterLimit is the abort cause of a Meter without an Err.
var ErrMeterLimit = errors.New("fe: meter limit exceeded")

// NaNStyle selects how a NaN prints.
type NaNStyle uint8

// NaN printing styles.
const (
	NaNGlibc  NaNStyle = iota // "-nan" when the sign bit is set, else "nan" (the .out reference)
	NaNNewlib                 // "nan" always (Cortex-M33 newlib, the .out-m33 reference)
)

// Model describes the C build whose memory layout the VM reproduces: one
// of Model32 and Model64.
type Model struct {
	ptrSize     int // bytes per pointer: 4 or 8
	gcStackSize int // entries in the GC root stack
}

// cellBytes is the size of one cell: two pointer-sized words.
func (m Model) cellBytes() int { return 2 * m.ptrSize }

// strBytes is the number of string bytes one string cell holds.
func (m Model) strBytes() int { return m.ptrSize - 1 }

// contextBytes is the size of the context struct stored at the start of
// the arena: three handler pointers, the GC stack and eight more word-sized
// fields (padded to pointer size).
func (m Model) contextBytes() int { return (m.gcStackSize + 11) * m.ptrSize }

// Model32 is the reference layout (x86-32 and Cortex-M33).
func Model32() Model { return Model{ptrSize: 4, gcStackSize: 256} }

// Model64 is the 64-bit host layout (the .out64 reference).
func Model64() Model { return Model{ptrSize: 8, gcStackSize: 256} }

// Option configures a VM.
type Option func(*VM)

// WithOutput sets where print writes (default io.Discard).
func WithOutput(w io.Writer) Option { return func(vm *VM) { vm.out = w } }

// WithModel selects the memory layout (default Model32).
func WithModel(m Model) Option { return func(vm *VM) { vm.model = m } }

// WithNaNStyle selects NaN printing (default NaNGlibc).
func WithNaNStyle(s NaNStyle) Option { return func(vm *VM) { vm.nanStyle = s } }

// WithMeter installs a meter (see Meter).
func WithMeter(m *Meter) Option { return func(vm *VM) { vm.meter = m } }

// WithExtensions enables the deck extension layer (see ext.go).
func WithExtensions() Option { return func(vm *VM) { vm.ext = true } }

// maxReadDepth bounds reader recursion (nested quotes and lists) as a
// guard against exhausting the Go stack on hostile input: a datum inside
// that many is refused. The C interpreter has no such bound and would
// crash instead; 100000 is far beyond anything the gc stack lets a list
// reach.
const maxReadDepth = 100000

// VM is one Fe context with its arena.
type VM struct {
	model    Model
	strBytes int
	cells    []cell // cells[0] is the static nil; arena cell i is cells[i+1]
	mem      arena  // cells again, for the evaluator's unchecked access
	count    int    // arena cells
	// arenaBytes is the size of the arena (context plus cells, and
	// the remainder no cell fills).
	arenaBytes int

	gcstack []Value
	gcIdx   int
	// The call list (the pairs being evaluated, outermost first) has
	// ncall entries: the first ones in calls, which a call reaches at a
	// fixed place in the VM, any deeper ones in callsDeep. Only the quiet
	// evaluator keeps it (see evalPair): with a meter it stays empty.
	calls     [callsInline]Value
	callsDeep []Value
	ncall     int
	freelist  Value
	symlist   Value
	t         Value
	nextchr   byte
	fnPrim    Value // the PRIM object bound to fn (lambda aliases it)

	syms    map[string]Value // intern table; mirrors symlist, which is never pruned
	counts  [NumEvents]uint64
	inGC    bool
	pending error // meter abort raised during a collection

	out      io.Writer
	nanStyle NaNStyle
	meter    *Meter

	// Event observation. Without a meter the thresholds are the maximum,
	// which no count reaches, and step only counts. Otherwise step takes
	// its slow path (observe) when counts[ev] passes thresh[ev], and Total
	// is brought up to date lazily: base holds the counts already priced into Total,
	// and the thresholds allow each event type slack more events, where
	// slack times the sum of the costs cannot pass the limit. So the first
	// event that could cross the limit takes the slow path, which prices
	// everything and checks exactly as a per-event meter would. meterSync
	// also runs at the API boundary (protect) and around primitives, so
	// Total is exact whenever its owner can see it.
	thresh  [NumEvents]uint64
	base    [NumEvents]uint64
	ext     bool
	quiet   bool // no meter: evaluate with evalQuiet
	prims   []primEntry
	docs    map[string]string
	scratch []byte
}

// Arena is memory a host lends a VM, such as a region of the deck's
// simulated SRAM. Its size in bytes decides the VM's cell count.
type Arena interface {
	Bytes() int
}

// Open opens a VM in the arena a: New with a's size. A host that allocates
// arenas uses it so that the VM's capacity is the one it granted.
func Open(a Arena, opts ...Option) (*VM, error) {
	vm, err := New(a.Bytes(), opts...)
	if err != nil {
		return nil, err
	}
	return vm, nil
}

// ArenaBytes returns the size of the arena the VM was opened in.
func (vm *VM) ArenaBytes() int { return vm.arenaBytes }

// New opens a VM in an arena of arenaBytes bytes. Like fe_open, it carves
// the context out of the arena, builds the free list and interns t and the
// 26 primitives. If the arena cannot hold them, New returns an *Error with
// message "out of memory".
func New(arenaBytes int, opts ...Option) (*VM, error) {
	vm := &VM{
		model: Model32(),
		out:   io.Discard,
		syms:  make(map[string]Value),
		docs:  make(map[string]string),
	}
	for _, o := range opts {
		o(vm)
	}
	vm.quiet = vm.meter == nil
	vm.strBytes = vm.model.strBytes()
	n := 0
	if arenaBytes > vm.model.contextBytes() {
		n = (arenaBytes - vm.model.contextBytes()) / vm.model.cellBytes()
	}
	if n >= maxCells {
		return nil, fmt.Errorf("fe: new: arena of %d bytes: more cells than values can address", arenaBytes)
	}
	vm.count = n
	vm.arenaBytes = arenaBytes
	vm.cells = make([]cell, n+1)
	vm.mem = arena{base: unsafe.Pointer(&vm.cells[0])}
	vm.cells[0] = cell{typ: TNil}
	vm.gcstack = make([]Value, vm.model.gcStackSize)
	// The free list runs from the last cell down to the first; freelist
	// and symlist start as Nil, the zero Value.
	for i := 1; i <= n; i++ {
		vm.cells[i] = cell{typ: TFree, cdr: vm.freelist, envLen: uint32(i)}
		vm.freelist = valueOf(i)
	}
	if err := vm.protect(vm.open); err != nil {
		return nil, err
	}
	return vm, nil
}

func (vm *VM) open() {
	vm.t = vm.symbol("t")
	vm.setGlobal(vm.t, vm.t)
	save := vm.gcIdx
	for i, name := range strings.Fields(primNameList) {
		v := vm.object()
		vm.cells[v.index()].typ = TPrim
		vm.cells[v.index()].aux = int32(i)
		vm.setGlobal(vm.symbol(name), v)
		vm.gcIdx = save
		if i == pFn {
			vm.fnPrim = v
		}
	}
	if vm.ext {
		vm.openExtensions()
	}
}

// Error is an evaluation or read error.
type Error struct {
	Msg   string // the message fe prints after "error: "
	Cause error  // the meter's or primitive's error, if any
	abort bool   // raised by the meter: not catchable by try

	obj    Value // structured error object (valid until the next allocation)
	hasObj bool
}

func (e *Error) Error() string { return e.Msg }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

// vmPanic carries an *Error up the Go stack to the nearest protect.
type vmPanic struct{ err *Error }

// protect runs f and converts a raised Lisp error into an *Error.
func (vm *VM) protect(f func()) (err *Error) {
	vm.meterSync()
	defer func() {
		vm.meterSync()
		if r := recover(); r != nil {
			p, ok := r.(vmPanic)
			if !ok {
				panic(r)
			}
			err = p.err
		}
	}()
	f()
	return nil
}

// fail raises a Lisp error, as fe_error does. The call list is left as
// it was for the traceback (see RunFile); the next evaluation resets it.
func (vm *VM) fail(msg string) {
	vm.raise(&Error{Msg: msg})
}

func (vm *VM) raise(e *Error) {
	panic(vmPanic{e})
}

// callsInline is how many entries of the call list the VM holds in place.
const callsInline = 512

// call returns entry i of the call list.
func (vm *VM) call(i int) Value {
	if i < len(vm.calls) {
		return vm.calls[i]
	}
	return vm.callsDeep[i-len(vm.calls)]
}

// traceback returns the forms of the call list, innermost first, each cut
// to the 63 bytes fe_tostring keeps in the C traceback's 64-byte buffer.
func (vm *VM) traceback() []string {
	tr := make([]string, 0, vm.ncall)
	for i := vm.ncall - 1; i >= 0; i-- {
		s := vm.toString(vm.call(i))
		tr = append(tr, s[:min(len(s), 63)])
	}
	return tr
}

// step records an event and runs the meter.
//
// Without a meter the thresholds are the maximum, which no count
// reaches, so step needs no test of whether anything observes.
func (vm *VM) step(ev Event) {
	vm.counts[ev]++
	if vm.counts[ev] > vm.thresh[ev] {
		vm.observe()
	}
}

// tally records an event in the quiet evaluator (eval_quiet.go, generated
// from eval.go), which runs only when no meter is installed: then no
// count ever passes its threshold, so step's test is dead and left out.
func (vm *VM) tally(ev Event) { vm.counts[ev]++ }

// stepN records n consecutive events of one kind with nothing in between,
// as n calls of step would. The lookups, which tally a symbol's
// environment walk in a register, add it at once here. Without a meter
// no count passes its threshold; past one, replay takes the n events back
// and steps them one by one.
func (vm *VM) stepN(ev Event, n uint64) {
	if vm.counts[ev] += n; vm.counts[ev] > vm.thresh[ev] {
		vm.replay(ev, n)
	}
}

func (vm *VM) replay(ev Event, n uint64) {
	vm.counts[ev] -= n
	for ; n > 0; n-- {
		vm.step(ev)
	}
}

// observe is step's slow path: the event has been counted and passed its
// threshold.
func (vm *VM) observe() {
	// Price everything so far (see thresh).
	vm.meterSync()
	if vm.meter.Total > vm.meter.Limit {
		vm.meterAbort()
	}
}

// meterSync prices the events counted since the last sync into the meter
// and resets the thresholds from the meter's room left. Without a meter
// the thresholds are the maximum, which no count reaches. protect syncs
// before anything runs, New's setup included.
func (vm *VM) meterSync() {
	m := vm.meter
	if m == nil {
		for ev := range vm.thresh {
			vm.thresh[ev] = math.MaxUint64
		}
		return
	}
	var sum uint64
	for ev := range vm.counts {
		m.Total += (vm.counts[ev] - vm.base[ev]) * m.Costs[ev]
		sum += m.Costs[ev]
	}
	vm.base = vm.counts
	// The room left under the limit (none past it), and the events of each
	// kind it surely holds; without any cost, all of them (capped so that
	// a threshold cannot wrap).
	room := m.Limit - min(m.Total, m.Limit)
	slack := min(room/max(sum, 1), 1<<62)
	for ev := range vm.thresh {
		vm.thresh[ev] = vm.counts[ev] + slack
	}
}

// meterAbort disarms the meter and aborts with its error. The thresholds
// still say the limit is passed: the next event (in a collection running
// now) or the abort's unwinding (protect) syncs them with the new limit.
func (vm *VM) meterAbort() {
	m := vm.meter
	m.Limit = math.MaxUint64
	err := m.Err
	if err == nil {
		err = ErrMeterLimit
	}
	vm.abort(err)
}

// abort raises a meter error, or during a collection records it to be
// raised when the collection has finished (the meter aborts once: see
// meterAbort).
func (vm *VM) abort(err error) {
	if vm.inGC {
		vm.pending = err
		return
	}
	vm.raise(&Error{Msg: err.Error(), Cause: err, abort: true})
}

// ErrOutOfMemory and ErrGCStackOverflow let callers test for the two
// resource errors with errors.Is.
var (
	ErrOutOfMemory     = errors.New("out of memory")
	ErrGCStackOverflow = errors.New("gc stack overflow")
)

// Is reports whether target is one of the resource sentinels matching Msg.
func (e *Error) Is(target error) bool {
	return (target == ErrOutOfMemory && e.Msg == "out of memory") ||
		(target == ErrGCStackOverflow && e.Msg == "gc stack overflow")
}

// frame returns the two GC stack slots from save on, where a list of
// forms being evaluated keeps the rest of the list and its environment;
// without room for both, pushing the first overflows the stack (C pushes
// the two with pushgc).
func (vm *VM) frame(save int) *[2]Value {
	if save+2 > len(vm.gcstack) {
		vm.fail("gc stack overflow")
	}
	return (*[2]Value)(vm.gcstack[save : save+2])
}

func (vm *VM) pushgc(v Value) {
	if vm.gcIdx == len(vm.gcstack) {
		vm.fail("gc stack overflow")
	}
	vm.gcstack[vm.gcIdx] = v
	vm.gcIdx++
}

// evalTop evaluates obj in env from outside the evaluator (the reader
// loop, eval and try), with the quiet evaluator when nothing observes
// events.
func (vm *VM) evalTop(obj, env Value) Value {
	if vm.quiet {
		return vm.evalQuiet(obj, env, nil)
	}
	return vm.eval(obj, env, nil)
}

func (vm *VM) typ(v Value) Type { return vm.mem.at(v).typ }

// mark is fe_mark: recurse on car, loop on cdr.
func (vm *VM) mark(v Value) {
	for v != Nil && v < refNone {
		c := vm.mem.at(v)
		if c.mark {
			return
		}
		c.mark = true
		vm.step(EvMark)
		switch c.typ {
		case TPair:
			vm.mark(c.car)
			v = c.cdr
		case TFunc, TMacro, TSymbol, TString:
			v = c.cdr
		default:
			return
		}
	}
}

func (vm *VM) collect() {
	vm.inGC = true
	for i := 0; i < vm.gcIdx; i++ {
		vm.mark(vm.gcstack[i])
	}
	vm.mark(vm.symlist)
	// Every cell of the arena is one sweep event, counted (and metered)
	// in one addition. Batching the meter is exact because inside a
	// collection a meter abort is only recorded, and the total is the same.
	if vm.counts[EvSweep] += uint64(vm.count); vm.counts[EvSweep] > vm.thresh[EvSweep] {
		vm.observe()
	}
	// The VM collects only when an allocation finds the free list empty,
	// so every cell is in use (and typed by its allocation): an unmarked
	// one is garbage. The free list head and length live in locals during
	// the loop.
	freelist, free := vm.freelist, vm.freeCells()
	mem, last := vm.mem, valueOf(vm.count)
	for v := cellSize; v <= last; v += cellSize {
		c := mem.at(v)
		if !c.mark {
			c.cdr = freelist
			free++
			c.envLen = uint32(free)
			freelist = v
		} else {
			c.mark = false
		}
	}
	vm.freelist = freelist
	vm.inGC = false
	if err := vm.pending; err != nil {
		vm.pending = nil
		vm.raise(&Error{Msg: err.Error(), Cause: err, abort: true})
	}
}

// object takes a cell from the free list, collecting first if it is empty,
// and pushes it on the GC stack. The cell keeps its stale fields.
//
// This is the fast path: a free cell at hand, no event to observe and room
// on the GC stack. Anything else goes through objectSlow, which has the
// full order of effects; the fast path produces the same effects.
func (vm *VM) object() Value {
	v := vm.freelist
	gs, gi := vm.gcstack, vm.gcIdx
	if v == Nil || vm.counts[EvAlloc] >= vm.thresh[EvAlloc] || uint(gi) >= uint(len(gs)) {
		return vm.objectSlow()
	}
	vm.counts[EvAlloc]++
	vm.freelist = vm.mem.at(v).cdr
	gs[gi] = v
	vm.gcIdx = gi + 1
	return v
}

func (vm *VM) objectSlow() Value {
	if vm.freelist == Nil {
		vm.collect()
		if vm.freelist == Nil {
			vm.fail("out of memory")
		}
	}
	// The event comes first so that a meter abort cannot strand a cell
	// that has left the free list.
	vm.step(EvAlloc)
	v := vm.freelist
	vm.freelist = vm.mem.at(v).cdr
	vm.pushgc(v)
	return v
}

// cons and number take their cell from object; the evaluator's hot paths
// (argument lists, bindings, cons and arithmetic results) have object's
// fast path written out instead.
func (vm *VM) cons(car, cdr Value) Value {
	v := vm.object()
	c := vm.mem.at(v)
	c.typ = TPair
	c.car = car
	c.cdr = cdr
	return v
}

func (vm *VM) number(n float32) Value {
	v := vm.object()
	c := vm.mem.at(v)
	c.typ = TNumber
	c.num = n
	return v
}

func (vm *VM) boolean(b bool) Value {
	if b {
		return vm.t
	}
	return Nil
}

// buildString appends chr to the string chunk tail, starting a new chunk
// when tail is refNone or full; it returns the new tail.
func (vm *VM) buildString(tail Value, chr byte) Value {
	if tail == refNone || vm.mem.at(tail).s[vm.strBytes-1] != 0 {
		v := vm.object()
		c := vm.mem.at(v)
		c.typ = TString
		c.s = [7]byte{}
		c.cdr = Nil
		if tail != refNone {
			vm.mem.at(tail).cdr = v
			vm.gcIdx--
		}
		tail = v
	}
	c := vm.mem.at(tail)
	for i := 0; i < vm.strBytes; i++ {
		if c.s[i] == 0 {
			c.s[i] = chr
			break
		}
	}
	return tail
}

func (vm *VM) str(s string) Value {
	v := vm.buildString(refNone, 0)
	tail := v
	for i := 0; i < len(s) && s[i] != 0; i++ {
		tail = vm.buildString(tail, s[i])
	}
	return v
}

// goString returns the bytes of a string object: its raw printed form.
func (vm *VM) goString(v Value) string { return vm.toString(v) }

func (vm *VM) symbolName(sym Value) string {
	return vm.goString(vm.mem.at(vm.mem.at(sym).cdr).car)
}

// symbol interns name: a SYMBOL cell whose cdr is (name-string . value),
// plus one cons on the symbol list.
func (vm *VM) symbol(name string) Value {
	for i := 0; i < len(name); i++ {
		if name[i] == 0 {
			name = name[:i]
			break
		}
	}
	if v, ok := vm.syms[name]; ok {
		return v
	}
	v := vm.object()
	vm.mem.at(v).typ = TSymbol
	vm.mem.at(v).local = false
	s := vm.str(name)
	p := vm.cons(s, Nil)
	vm.mem.at(v).cdr = p
	vm.symlist = vm.cons(v, vm.symlist)
	vm.syms[name] = v
	if vm.ext && len(name) > 1 && name[0] == ':' {
		vm.mem.at(p).cdr = v
	}
	return v
}

func (vm *VM) setGlobal(sym, v Value) {
	vm.mem.at(vm.mem.at(sym).cdr).cdr = v
}

func (vm *VM) checkType(v Value, t Type) Value {
	if vm.mem.at(v).typ != t {
		vm.typeError(v, t)
	}
	return v
}

// typeError is checkType's failure, kept out of line so that checkType
// inlines.
func (vm *VM) typeError(v Value, t Type) {
	vm.fail("expected " + t.String() + ", got " + vm.typ(v).String())
}

func (vm *VM) car(v Value) Value {
	if v == Nil {
		return v
	}
	return vm.mem.at(vm.checkType(v, TPair)).car
}

func (vm *VM) cdr(v Value) Value {
	if v == Nil {
		return v
	}
	return vm.mem.at(vm.checkType(v, TPair)).cdr
}

// freeCells returns the length of the free list, which its head records
// (see cell).
func (vm *VM) freeCells() int { return int(vm.mem.at(vm.freelist).envLen) }

// Stats describes the arena.
type Stats struct {
	Cells int // cells in the arena
	Free  int // cells on the free list
}

// Stats returns arena statistics.
func (vm *VM) Stats() Stats {
	return Stats{Cells: vm.count, Free: vm.freeCells()}
}

// Counts returns how many times each event has occurred.
func (vm *VM) Counts() [NumEvents]uint64 { return vm.counts }
