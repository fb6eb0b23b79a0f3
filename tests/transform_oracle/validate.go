//go:build !line210

package main

import "github.com/nats-io/nats-server/v2/server"

// validateMapping: the checks of a `mappings` block entry (2.11 and later: ValidateMapping, which also builds
// the transform).
func validateMapping(src, dest string) error {
	if !server.IsValidSubject(src) {
		return server.ErrBadSubject
	}
	return server.ValidateMapping(src, dest)
}
