package referee

import "gauntlet/games/contract"

// Categories are the marking categories of the referee-protocol suite (20 marks): a
// tic-tac-toe referee's verdicts, and players of both example games, judged live.
var Categories = []contract.Category{
	{Name: "referee/handshake", Program: "ttt-referee", Marks: 2, About: "features, feature_end, the players read, a first verdict"},
	{Name: "referee/verdicts", Program: "ttt-referee", Marks: 6, About: "valid, invalid and valid end with the scores, for wins, a draw and every kind of bad move"},
	{Name: "player/tic-tac-toe", Program: "ttt-player", Marks: 8, About: "whole games in both seats against the random and the perfect player, every move valid"},
	{Name: "player/connect-four", Program: "c4-player", Marks: 4, About: "whole games with write_lines and no_last_move, every move valid"},
}
