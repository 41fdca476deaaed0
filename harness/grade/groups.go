package grade

// groupCases gathers the cases keep selects into groups of the same verdict and the same
// account (Detail), in the order each group first appears: one cause (a missing program,
// the same first divergence) is one entry in a report, with its cases.
func groupCases(cases []CaseReport, keep func(CaseReport) bool) [][]CaseReport {
	var groups [][]CaseReport
	index := map[string]int{}
	for _, c := range cases {
		if !keep(c) {
			continue
		}
		key := string(c.Verdict) + "\x00" + c.Detail
		i, ok := index[key]
		if !ok {
			i = len(groups)
			index[key] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], c)
	}
	return groups
}

func failed(c CaseReport) bool { return !c.Verdict.Passed() }
