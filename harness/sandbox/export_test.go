package sandbox

// DirectStarts is how many programs this process started without the exec role.
func DirectStarts() int64 { return directStarts.Load() }

// CanSetOthersLimits says whether this process may set another user's limits as root.
func CanSetOthersLimits() bool { return canSetOthersLimits() }
