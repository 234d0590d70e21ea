// The words of a permission question, the same in the panel's prompt, its screen-reader line and VS Code's
// notification while the panel is hidden.

/** The kind of prompt that asks before a worker Baton cannot isolate changes the user's folder itself. */
export const WORK_IN_PLACE = 'change the folder itself';

/**
 * Kinds whose every request is the user's to decide, one at a time: an "Allow for <worker>" would remember nothing
 * (a sandbox bypass, a file outside the folder, a change set settled, a skill), so the prompt offers Allow and Deny only.
 */
const DECIDED_EACH_TIME = new Set([
  'outside the sandbox',
  'sandbox file and process limits off',
  'edit a file outside its folder',
  'read a file outside its folder',
  'apply changes',
  'keep as a branch',
  'discard changes',
  'install a skill',
  'remove a skill',
]);

/**
 * The button of the answer that is kept (the decision `worker`), in words: "Allow for <worker>" (that kind, for the rest
 * of the worker or the conversation), "Allow in this folder" (working unisolated there, until the window closes), or
 * undefined where nothing would be kept.
 */
export function keptApproval(kind: string, worker: string): string | undefined {
  if (kind === WORK_IN_PLACE) return 'Allow in this folder';
  return DECIDED_EACH_TIME.has(kind) ? undefined : `Allow for ${worker}`;
}

/**
 * What a worker asks to do, in words ("wants to run a command"), from the runtime's kind of request; a kind this list
 * does not know is named as it is.
 */
export function permissionAsk(kind: string): string {
  switch (kind) {
    case WORK_IN_PLACE:
      return 'wants to change your folder itself (Baton cannot give it a copy)';
    case 'shell':
      return 'wants to run a command';
    case 'write':
      return 'wants to edit a file';
    case 'read':
      return 'wants to read a file';
    case 'url':
      return 'wants to fetch a URL';
    case 'mcp':
      return 'wants to use an MCP tool';
    case 'custom-tool':
      return 'wants to use a tool';
    case 'install a skill':
      return 'wants to install a skill';
    case 'remove a skill':
      return 'wants to remove a skill';
    case 'apply changes':
      return 'wants to apply its changes to your files';
    case 'keep as a branch':
      return 'wants to keep its changes as a branch';
    case 'discard changes':
      return 'wants to discard its changes';
    case 'hook':
      return 'wants to run a hook';
    default:
      return `wants permission: ${kind}`;
  }
}
