package stlucia

import "gauntlet/games/contract"

// Exit statuses of the hub (stlucia), as in the spec's table.
const (
	ExitOK          = 0
	ExitUsage       = 1
	ExitScore       = 2
	ExitRollAccess  = 3
	ExitRollContent = 4
	ExitStart       = 5
	ExitQuit        = 6
	ExitMalformed   = 7
	ExitIllegal     = 8
	ExitSIGINT      = 9
)

// Exit statuses of a player, as in the spec's table.
const (
	PlayerExitOK     = 0
	PlayerExitUsage  = 1
	PlayerExitCount  = 2
	PlayerExitID     = 3
	PlayerExitLost   = 4
	PlayerExitBadMsg = 5
)

const (
	sectionHubExits    = "Exits / Exit status for stlucia"
	sectionPlayerExits = "Exits / Exit status for player"
)

// HubContract is the spec's exit table of the hub, in the spec's order.
var HubContract = contract.Table{
	{Program: "stlucia", Condition: "Normal exit due to game over", Status: ExitOK, Message: "", Section: sectionHubExits},
	{Program: "stlucia", Condition: "Wrong number of arguments", Status: ExitUsage, Message: "Usage: stlucia rollfile winscore prog1 prog2 [prog3 [prog4]]", Section: sectionHubExits},
	{Program: "stlucia", Condition: "Winscore is not a positive integer", Status: ExitScore, Message: "Invalid score", Section: sectionHubExits},
	{Program: "stlucia", Condition: "Unable to open rolls file for reading", Status: ExitRollAccess, Message: "Unable to access rollfile", Section: sectionHubExits},
	{Program: "stlucia", Condition: "Contents of the rolls file are invalid", Status: ExitRollContent, Message: "Error reading rolls", Section: sectionHubExits},
	{Program: "stlucia", Condition: "There was an error starting and piping to a player process", Status: ExitStart, Message: "Unable to start subprocess", Section: sectionHubExits},
	{Program: "stlucia", Condition: "A player process ends unexpectedly. ie Reading from the pipe from that process fails before a gameover message has been sent to it. [only applies once all child processes have started successfully]", Status: ExitQuit, Message: "Player quit", Section: sectionHubExits},
	{Program: "stlucia", Condition: "One of the players has sent an invalid message", Status: ExitMalformed, Message: "Invalid message received from player", Section: sectionHubExits},
	{Program: "stlucia", Condition: "One of the players sent a properly formed message but it was not a legal action", Status: ExitIllegal, Message: "Invalid request by player", Section: sectionHubExits},
	{Program: "stlucia", Condition: "The stlucia received SIGINT", Status: ExitSIGINT, Message: "SIGINT caught", Section: sectionHubExits},
}

// PlayerContract is the spec's exit table of every player program (EAIT, SCIENCE, HABS,
// HASS, MABS), in the spec's order.
var PlayerContract = contract.Table{
	{Program: "player", Condition: "Normal exit due to game over", Status: PlayerExitOK, Message: "", Section: sectionPlayerExits},
	{Program: "player", Condition: "Wrong number of arguments", Status: PlayerExitUsage, Message: "Usage: player number_of_players my_id", Section: sectionPlayerExits},
	{Program: "player", Condition: "Invalid number of players", Status: PlayerExitCount, Message: "Invalid player count", Section: sectionPlayerExits},
	{Program: "player", Condition: "Invalid player ID", Status: PlayerExitID, Message: "Invalid player ID", Section: sectionPlayerExits},
	{Program: "player", Condition: "Pipe from stlucia closed unexpectedly (i.e. before a winner message was received)", Status: PlayerExitLost, Message: "Unexpectedly lost contact with StLucia", Section: sectionPlayerExits},
	{Program: "player", Condition: "Invalid message from stlucia", Status: PlayerExitBadMsg, Message: "Bad message from StLucia", Section: sectionPlayerExits},
}
