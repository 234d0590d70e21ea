// A failure of the change lifecycle worth telling the model or the user as is (no pending changes,
// a file the user must save first...). A ToolFailure, so a tool hands it to the model verbatim.
import { ToolFailure } from '../copilot/batonTool';

export class ChangeError extends ToolFailure {
  constructor(message: string) {
    super(message);
    this.name = 'ChangeError';
  }
}
