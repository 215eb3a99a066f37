package exec

// SignalName returns the name of the Unix signal numbered code, as a
// model's KILL[code] on a stream names it; a bare KILL (code 0) is SIGHUP
// (§run-lifecycle-total-reap). The numbering is Linux's. An unknown number
// reports false.
func SignalName(code int) (string, bool) {
	switch code {
	case 0, 1:
		return "SIGHUP", true
	case 2:
		return "SIGINT", true
	case 3:
		return "SIGQUIT", true
	case 6:
		return "SIGABRT", true
	case 9:
		return "SIGKILL", true
	case 10:
		return "SIGUSR1", true
	case 12:
		return "SIGUSR2", true
	case 14:
		return "SIGALRM", true
	case 15:
		return "SIGTERM", true
	}
	return "", false
}
