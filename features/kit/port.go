package kit

import (
	"fmt"
	"net"
)

// FreePort asks the kernel for a free loopback port, for a process driver
// to hand the implementation under test through its {port} placeholder.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
