package sandbox

// DirectStarts is how many programs this process started without the exec role.
func DirectStarts() int64 { return directStarts.Load() }
