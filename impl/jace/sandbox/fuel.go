package sandbox

import (
	"fmt"
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
// No registry: the handler's opaque pointer is the address of a meter
// allocated in the engine's own C heap, so handleInterrupt is a plain
// function with no shared Go state.

// Stop reasons stored in meter.reason.
const (
	reasonNone    = 0
	reasonFuel    = 1
	reasonTimeout = 2
)

// meter lives in C memory (libc.Xcalloc) and is read by the interrupt
// handler on the VM's goroutine and written by the watchdog from another.
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
	if opaque == 0 {
		return 0
	}
	m := *(**meter)(unsafe.Pointer(&opaque))
	used := atomic.AddInt64(&m.used, 1)
	if atomic.LoadInt32(&m.reason) != reasonNone {
		return 1
	}
	if atomic.LoadInt32(&m.stop) != 0 {
		atomic.StoreInt32(&m.reason, reasonTimeout)
		return 1
	}
	if m.fuel > 0 && used > m.fuel {
		atomic.StoreInt32(&m.reason, reasonFuel)
		return 1
	}
	if m.timeFuel > 0 && used > m.timeFuel {
		atomic.StoreInt32(&m.reason, reasonTimeout)
		return 1
	}
	return 0
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
// modernc.org/quickjs v0.27.0 VM, checking every name and type on the way.
func engineOf(vm *quickjs.VM) (engine, error) {
	v := reflect.ValueOf(vm).Elem()
	st := v.FieldByName("state")
	if !st.IsValid() || st.Kind() != reflect.Struct {
		return engine{}, fmt.Errorf("quickjs internals changed: VM has no struct field %q", "state")
	}
	rtf := st.FieldByName("runtime")
	if !rtf.IsValid() || rtf.Kind() != reflect.Pointer || rtf.Type().Elem().Kind() != reflect.Struct {
		return engine{}, fmt.Errorf("quickjs internals changed: VM.state has no pointer field %q", "runtime")
	}
	if rtf.IsNil() {
		return engine{}, fmt.Errorf("quickjs VM has no runtime (closed?)")
	}
	rt := reflect.NewAt(rtf.Type().Elem(), rtf.UnsafePointer()).Elem()
	cr := rt.FieldByName("cRuntime")
	if !cr.IsValid() || cr.Kind() != reflect.Uintptr {
		return engine{}, fmt.Errorf("quickjs internals changed: runtime has no uintptr field %q", "cRuntime")
	}
	tf := rt.FieldByName("tls")
	if !tf.IsValid() || tf.Type() != reflect.TypeOf((*libc.TLS)(nil)) {
		return engine{}, fmt.Errorf("quickjs internals changed: runtime has no *libc.TLS field %q", "tls")
	}
	e := engine{tls: (*libc.TLS)(tf.UnsafePointer()), cRuntime: uintptr(cr.Uint())}
	if e.tls == nil || e.cRuntime == 0 {
		return engine{}, fmt.Errorf("quickjs VM runtime is not initialised")
	}
	return e, nil
}

// installMeter allocates a meter in the engine's C heap and makes
// handleInterrupt the runtime's interrupt handler. The caller frees it with
// removeMeter before closing the VM.
func installMeter(e engine) (*meter, uintptr, error) {
	p := libc.Xcalloc(e.tls, 1, libc.Tsize_t(unsafe.Sizeof(meter{})))
	if p == 0 {
		return nil, 0, fmt.Errorf("allocating the fuel meter: out of memory")
	}
	m := *(**meter)(unsafe.Pointer(&p))
	lib.XJS_SetInterruptHandler(e.tls, e.cRuntime, funcPtr(handleInterrupt), p)
	return m, p, nil
}

// removeMeter uninstalls the handler and frees the meter.
func removeMeter(e engine, p uintptr) {
	lib.XJS_SetInterruptHandler(e.tls, e.cRuntime, 0, 0)
	libc.Xfree(e.tls, p)
}
