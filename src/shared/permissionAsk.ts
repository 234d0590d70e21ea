// The words of a permission question, the same in the panel's prompt, its screen-reader line and VS Code's
// notification while the panel is hidden.
import type { PermissionPrompt } from './protocol';

/** The kind of prompt that asks before a worker Baton cannot isolate changes the user's folder itself. */
export const WORK_IN_PLACE = 'change the folder itself';

/**
 * The button of the answer that is kept (the decision `worker`), in words, from what the asker said it keeps: "Allow for
 * <worker>", "Allow in this conversation", "Allow in this folder", or undefined where nothing would be kept.
 */
export function keptApproval(prompt: Pick<PermissionPrompt, 'kept'>, worker: string): string | undefined {
  switch (prompt.kept) {
    case 'asker':
      return `Allow for ${worker}`;
    case 'conversation':
      return 'Allow in this conversation';
    case 'folder':
      return 'Allow in this folder';
    default:
      return undefined;
  }
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
    case 'undo an apply':
      return 'wants to undo the Apply of its changes';
    case 'hook':
      return 'wants to run a hook';
    default:
      return `wants permission: ${kind}`;
  }
}
