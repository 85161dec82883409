import type { ProgressEvent } from '@plugboard/sdk';
import type { CliIo } from './io.js';

/**
 * Progress of long work on stderr, only when stderr is a terminal: a bar when
 * the work has a percentage, a spinner otherwise. Stdout stays pure JSON.
 */
export interface Progress {
  update(event: Pick<ProgressEvent, 'label' | 'percent' | 'done' | 'total'>): void;
  done(): void;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const BAR_WIDTH = 24;

export function createProgress(stderr: CliIo['stderr']): Progress {
  if (!stderr.isTTY) return { update: () => undefined, done: () => undefined };
  let frame = 0;
  let shown = false;
  return {
    update(event) {
      const label = event.label ?? 'working';
      const counts =
        event.total !== undefined
          ? ` ${event.done ?? 0}/${event.total}`
          : event.done !== undefined
            ? ` ${event.done}`
            : '';
      let line: string;
      if (event.percent !== undefined) {
        const percent = Math.max(0, Math.min(100, event.percent));
        const filled = Math.round((percent / 100) * BAR_WIDTH);
        line = `[${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}] ${percent.toFixed(0).padStart(3)}% ${label}${counts}`;
      } else {
        line = `${FRAMES[frame++ % FRAMES.length]} ${label}${counts}`;
      }
      stderr.write(`\r\x1b[2K${line.slice(0, (stderr.columns || 100) - 1)}`);
      shown = true;
    },
    done() {
      if (shown) stderr.write('\r\x1b[2K');
      shown = false;
    },
  };
}
