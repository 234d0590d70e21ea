// An MCP tool as a permission prompt names it: "server/tool". The runtime names a tool `<server>-<tool>`, and the
// prefix said twice read "notes/notes-write_note".
export function mcpToolLabel(serverName: string, toolName: string): string {
  const prefix = `${serverName}-`;
  return `${serverName}/${toolName.startsWith(prefix) ? toolName.slice(prefix.length) : toolName}`;
}
