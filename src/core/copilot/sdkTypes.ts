// The SDK's types that cross the seam as data (events for transcripts, permission requests for the
// workers' policy, MCP server entries from the user's config). Types only: no SDK code runs outside
// src/core/copilot/.
export type {
  MCPServerConfig as McpServerConfig,
  PermissionHandler,
  PermissionRequest,
  PermissionRequestResult,
  SessionEvent as AgentEvent,
  Tool as SdkTool,
  ToolInvocation,
  ToolResultObject,
} from '@github/copilot-sdk';
