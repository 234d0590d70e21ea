// A failure of the change lifecycle worth telling the model or the user as is (no pending changes,
// a file the user must save first...). A ToolFailure, so a tool hands it to the model verbatim.
import { ToolFailure } from '../copilot/batonTool';

export class ChangeError extends ToolFailure {
  constructor(message: string) {
    super(message);
    this.name = 'ChangeError';
  }
}

/**
 * The worker's changes are not what the user confirmed any more (a follow-up ran while the dialog was open): nothing
 * was applied, since what would land is not what they chose.
 */
export class ChangedSinceConfirm extends ChangeError {
  constructor(worker: string) {
    super(`Nothing was applied: the changes of worker '${worker}' changed after you chose to apply them (it worked on). Review them and Apply again.`);
    this.name = 'ChangedSinceConfirm';
  }
}
