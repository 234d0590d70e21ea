// What went wrong with a skill, as the model and the user are told it. The text is for people; `reason` is what code
// (and tests) may branch on, so no caller ever reads the English.
import { ToolFailure } from '../copilot/batonTool';

/** Why a skill was not installed, or not removed. */
export type SkillErrorReason =
  /** Not an existing absolute folder, not a git URL Baton clones, or a subpath that leaves it. */
  | 'bad-source'
  /** In or around a protected path (a credential store, baton.workers.protectedPaths, Baton's own storage). */
  | 'protected'
  /** No SKILL.md where one was looked for. */
  | 'no-skill'
  /** A link leading out of the skill, a FIFO or device, a SKILL.md that is not a regular file. */
  | 'not-own-file'
  | 'too-many-entries'
  /** Its files, or its SKILL.md, hold more bytes than a skill may. */
  | 'too-large'
  /** An invalid name, two skills of one name, or a name given for several skills. */
  | 'bad-name'
  | 'not-installed'
  | 'git'
  | 'copy-failed';

/** A skill problem worth telling the model as is (not found, bad source, git failed). */
export class SkillError extends ToolFailure {
  constructor(
    readonly reason: SkillErrorReason,
    message: string,
  ) {
    super(message);
    this.name = 'SkillError';
  }
}
