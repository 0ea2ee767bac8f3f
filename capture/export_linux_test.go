package capture

// IsNodeExe is isNodeExe, for its table.
var IsNodeExe = isNodeExe
