package strategohub

// For the external tests (match_test.go): the scripted AIs of the manager's tests.
var (
	ScriptAI  = script
	RandomAI  = random
	SetupRows = setupRows
)
