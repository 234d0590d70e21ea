import type { CopilotSession } from '@github/copilot-sdk';
import { withTimeout } from '../util/delay';

/** A session on a dead connection may never answer disconnect(): bounded, errors ignored. */
export async function disconnectQuietly(session: CopilotSession | undefined): Promise<void> {
  if (!session) return;
  await withTimeout(session.disconnect(), 2000, 'disconnect timed out').catch(() => undefined);
}
