package chatlog

import (
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func cmpOpts() []cmp.Option {
	return []cmp.Option{
		cmpopts.IgnoreFields(ReportRequest{}, "Line"),
		cmpopts.IgnoreFields(ReportReply{}, "Line", "RequestLine"),
		cmpopts.EquateEmpty(),
	}
}
