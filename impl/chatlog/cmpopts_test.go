package chatlog

import (
	"anchorage/impl/chatlog/logparse"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func cmpOpts() []cmp.Option {
	return []cmp.Option{
		cmpopts.IgnoreFields(logparse.ReportRequest{}, "Line"),
		cmpopts.IgnoreFields(logparse.ReportReply{}, "Line", "RequestLine"),
		cmpopts.EquateEmpty(),
	}
}
