package dealer2310

import "gauntlet/games/contract"

// Exit statuses of the dealer (2310dealer), as in the spec's table.
const (
	ExitOK    = 0
	ExitUsage = 1
	ExitDeck  = 2
	ExitPath  = 3
	ExitStart = 4
	ExitComms = 5
)

// Exit statuses of a player (2310A, 2310B), as in the spec's table.
const (
	PlayerExitOK    = 0
	PlayerExitUsage = 1
	PlayerExitCount = 2
	PlayerExitID    = 3
	PlayerExitPath  = 4
	PlayerExitEarly = 5
	PlayerExitComms = 6
)

const (
	sectionDealerErrors = "2310dealer / Dealer errors"
	sectionPlayerErrors = "Players / Player errors"
)

// DealerContract is the spec's exit table of the dealer, in the spec's order (the order
// the conditions are checked in).
var DealerContract = contract.Table{
	{Program: "2310dealer", Condition: "Normal end", Status: ExitOK, Message: "", Section: sectionDealerErrors},
	{Program: "2310dealer", Condition: "Incorrect number of args", Status: ExitUsage, Message: "Usage: 2310dealer deck path p1 {p2}", Section: sectionDealerErrors},
	{Program: "2310dealer", Condition: "Invalid deck file or contents", Status: ExitDeck, Message: "Error reading deck", Section: sectionDealerErrors},
	{Program: "2310dealer", Condition: "Invalid path file or contents", Status: ExitPath, Message: "Error reading path", Section: sectionDealerErrors},
	{Program: "2310dealer", Condition: "Error starting one of the players", Status: ExitStart, Message: "Error starting process", Section: sectionDealerErrors},
	{Program: "2310dealer", Condition: "Communications error", Status: ExitComms, Message: "Communications error", Section: sectionDealerErrors},
}

// PlayerContract is the spec's exit table of every player (2310A and 2310B), in the
// spec's order.
var PlayerContract = contract.Table{
	{Program: "player", Condition: "Normal end", Status: PlayerExitOK, Message: "", Section: sectionPlayerErrors},
	{Program: "player", Condition: "Incorrect number of args", Status: PlayerExitUsage, Message: "Usage: player pcount ID", Section: sectionPlayerErrors},
	{Program: "player", Condition: "Player count is < 1 (or contains invalid chars)", Status: PlayerExitCount, Message: "Invalid player count", Section: sectionPlayerErrors},
	{Program: "player", Condition: "Player-id is < 0 or >= playercount (or contains invalid chars)", Status: PlayerExitID, Message: "Invalid ID", Section: sectionPlayerErrors},
	{Program: "player", Condition: "Error in path", Status: PlayerExitPath, Message: "Invalid path", Section: sectionPlayerErrors},
	{Program: "player", Condition: "Early game over", Status: PlayerExitEarly, Message: "Early game over", Section: sectionPlayerErrors},
	{Program: "player", Condition: "Communications error", Status: PlayerExitComms, Message: "Communications error", Section: sectionPlayerErrors},
}
