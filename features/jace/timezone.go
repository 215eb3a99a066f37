package jace

import (
	"context"
	"fmt"

	"modernc.org/libc"
)

// The host's time zone, as the embedded reference's engine sees it. The
// QuickJS engine runs on modernc's C library, which keeps an environment of
// its own (copied from the process's at start) and reads the local time zone
// from its TZ, as a C program on a host in that zone would.

// hostTimeZone sets TZ in the C library's environment to zone, a POSIX TZ
// string such as "JST-9" (no zone files needed), for the rest of the
// scenario; restoreTimeZone sets it back.
func hostTimeZone(_ context.Context, w *world, zone string) error {
	if err := embeddedOnly(w); err != nil {
		return err
	}
	old, had, err := cEnv("TZ")
	if err != nil {
		return err
	}
	if w.restoreTZ == nil {
		w.restoreTZ = func() error { return setCEnv("TZ", old, had) }
	}
	return setCEnv("TZ", zone, true)
}

// restoreTimeZone gives the C library's TZ back the value it had before the
// scenario changed it.
func restoreTimeZone(w *world) error {
	if w.restoreTZ == nil {
		return nil
	}
	defer func() { w.restoreTZ = nil }()
	return w.restoreTZ()
}

// cEnv reads a variable of the C library's environment.
func cEnv(name string) (string, bool, error) {
	tls := libc.NewTLS()
	defer tls.Close()
	cname, err := libc.CString(name)
	if err != nil {
		return "", false, fmt.Errorf("reading %s of the C library's environment: %w", name, err)
	}
	defer libc.Xfree(tls, cname)
	p := libc.Xgetenv(tls, cname)
	if p == 0 {
		return "", false, nil
	}
	return libc.GoString(p), true, nil
}

// setCEnv sets a variable of the C library's environment to value, or
// unsets it when set is false.
func setCEnv(name, value string, set bool) error {
	tls := libc.NewTLS()
	defer tls.Close()
	cname, err := libc.CString(name)
	if err != nil {
		return fmt.Errorf("setting %s in the C library's environment: %w", name, err)
	}
	defer libc.Xfree(tls, cname)
	if !set {
		if libc.Xunsetenv(tls, cname) != 0 {
			return fmt.Errorf("unsetting %s in the C library's environment", name)
		}
		return nil
	}
	cvalue, err := libc.CString(value)
	if err != nil {
		return fmt.Errorf("setting %s in the C library's environment: %w", name, err)
	}
	defer libc.Xfree(tls, cvalue)
	if libc.Xsetenv(tls, cname, cvalue, 1) != 0 {
		return fmt.Errorf("setting %s=%s in the C library's environment", name, value)
	}
	return nil
}
