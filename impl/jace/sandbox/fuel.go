package sandbox

import (
	"reflect"
	"sync/atomic"
	"unsafe"

	"modernc.org/libc"
	lib "modernc.org/libquickjs"
	"modernc.org/quickjs"
)

// Why a shim: modernc.org/quickjs v0.27.0 installs its own QuickJS interrupt
// handler (deadline and Interrupt flag only) and does not export
// JS_SetInterruptHandler. QuickJS calls the handler once every 10,000
// interpreter ticks (function calls, backward jumps, some long builtins), so
// counting those calls is a deterministic instruction meter for a given
// engine version and input. The shim reads the VM's C runtime pointer and
// libc thread state out of two unexported fields and installs handleInterrupt
// in place of modernc's handler. TestFuelShimFieldsPresent fails loudly if
// the fields it relies on move.
//
// No registry: the handler's opaque pointer is the address of the VM's
// meter, so handleInterrupt is a plain function with no shared Go state.

// Stop reasons stored in meter.reason.
const (
	reasonNone    = 0
	reasonFuel    = 1
	reasonTimeout = 2
)

// meter is read by the interrupt handler on the VM's goroutine and written
// by the watchdog from another.
type meter struct {
	stop     int32 // set to 1 by the wall-clock watchdog
	reason   int32 // why the handler stopped the script (reason*)
	used     int64 // handler calls since the last reset
	fuel     int64 // stop with reasonFuel once used exceeds this; 0 = no limit
	timeFuel int64 // stop with reasonTimeout once used exceeds this; 0 = none
}

// handleInterrupt is the QuickJS interrupt handler (C signature
// int (*)(JSRuntime *rt, void *opaque)). Returning 1 raises an uncatchable
// "interrupted" InternalError in the running script.
func handleInterrupt(tls *libc.TLS, rt, opaque uintptr) int32 {
	m := *(**meter)(unsafe.Pointer(&opaque))
	used := atomic.AddInt64(&m.used, 1)
	if atomic.LoadInt32(&m.reason) != reasonNone {
		return 1
	}
	if atomic.LoadInt32(&m.stop) != 0 {
		atomic.StoreInt32(&m.reason, reasonTimeout)
		return 1
	}
	if over(used, m.fuel) {
		atomic.StoreInt32(&m.reason, reasonFuel)
		return 1
	}
	if over(used, m.timeFuel) {
		atomic.StoreInt32(&m.reason, reasonTimeout)
		return 1
	}
	return 0
}

// over reports whether a meter that has counted used polls is past a
// budget of polls; a budget of 0 is no limit. Fuel and the deterministic
// timeout share it: a call may spend its whole budget.
func over(used, budget int64) bool {
	return budget > 0 && used > budget
}

// funcPtr returns the C-callable pointer of a top-level Go function, the
// way modernc.org/quickjs itself passes callbacks to the transpiled C: the
// data word of the interface holding the func value.
func funcPtr(f any) uintptr {
	type iface [2]uintptr
	return (*iface)(unsafe.Pointer(&f))[1]
}

// engine is what the shim digs out of a quickjs.VM.
type engine struct {
	tls      *libc.TLS
	cRuntime uintptr
}

// engineOf reads the unexported state.runtime.{cRuntime,tls} fields of a
// modernc.org/quickjs v0.27.0 VM. Should a later version move them,
// reflect panics here (and TestFuelShimFieldsPresent says why).
func engineOf(vm *quickjs.VM) engine {
	rt := reflect.ValueOf(vm).Elem().FieldByName("state").FieldByName("runtime").Elem()
	return engine{
		tls:      (*libc.TLS)(rt.FieldByName("tls").UnsafePointer()),
		cRuntime: uintptr(rt.FieldByName("cRuntime").Uint()),
	}
}

// installMeter makes handleInterrupt the runtime's interrupt handler, with
// a new meter as its opaque pointer. The meter is Go memory, which the
// garbage collector never moves; the VM keeps it for as long as the engine
// can call the handler.
func installMeter(e engine) *meter {
	m := &meter{}
	lib.XJS_SetInterruptHandler(e.tls, e.cRuntime, funcPtr(handleInterrupt), uintptr(unsafe.Pointer(m)))
	return m
}
