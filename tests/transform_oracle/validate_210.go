//go:build line210

package main

import "github.com/nats-io/nats-server/v2/server"

// validateMapping: the checks of a `mappings` block entry on 2.10: the destination's tokens
// (ValidateMappingDestination), then the transform is built (NewSubjectTransform, in run).
func validateMapping(src, dest string) error {
	if !server.IsValidSubject(src) {
		return server.ErrBadSubject
	}
	return server.ValidateMappingDestination(dest)
}
