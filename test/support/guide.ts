import { type ChildProcess, spawn } from 'node:child_process';

/**
 * The shell steps of a Markdown guide, as a reader would type them: every fenced block whose
 * info string is `sh`, in order. A block marked `sh background` is what the guide says to
 * start in a second terminal (a server the next steps talk to); every other `sh` block runs in
 * the one shell session, so `cd` and `export` carry over from block to block as they do for
 * the reader.
 */

export interface GuideStep {
  /** The line of the opening fence, for messages. */
  line: number;
  background: boolean;
  script: string;
}

export function guideSteps(markdown: string): GuideStep[] {
  const steps: GuideStep[] = [];
  const lines = markdown.split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    const open = /^```sh(?:\s+(background))?\s*$/.exec(lines[index]!);
    if (!open) continue;
    const start = index;
    const body: string[] = [];
    for (index += 1; index < lines.length && !lines[index]!.startsWith('```'); index += 1) body.push(lines[index]!);
    if (index >= lines.length) throw new Error(`the sh block at line ${start + 1} is never closed`);
    steps.push({ line: start + 1, background: open[1] === 'background', script: body.join('\n') });
  }
  return steps;
}

export interface ShellResult {
  code: number | null;
  output: string;
}

/** A step the guide starts in a second terminal: running until stopped, its output collected. */
export interface BackgroundStep {
  output(): string;
  /** Resolves once the output matches `pattern`; fails when the step exits first. */
  waitFor(pattern: RegExp): Promise<void>;
  stop(): Promise<void>;
  /** Ctrl+C, as the reader stops it: SIGINT to what the step started, and its output to the end. */
  interrupt(): Promise<void>;
}

/**
 * One reader's shell: each step runs with bash (`set -euo pipefail`) in the folder and with the
 * exported variables the previous step left, kept in `stateDir` between steps.
 */
export class GuideShell {
  private readonly env: NodeJS.ProcessEnv;
  private readonly start: string;
  /** Whether a step has saved its folder and exports yet. */
  private saved = false;

  constructor(stateDir: string, env: NodeJS.ProcessEnv, startDir: string) {
    this.env = { ...env, GUIDE_STATE: stateDir };
    this.start = startDir;
  }

  private script(step: string): string {
    const restore = this.saved
      ? `source "$GUIDE_STATE/env"\ncd "$(cat "$GUIDE_STATE/cwd")"\n`
      : `cd ${quote(this.start)}\n`;
    return `${restore}${step}\n`;
  }

  /**
   * Runs a step to its end; the folder and exports it leaves are the next step's. `watch` sees
   * the output so far as it comes, for what the reader does while a step runs (open a URL it printed).
   */
  async run(step: string, timeoutMs: number, watch?: (output: string) => void): Promise<ShellResult> {
    const save = `\npwd > "$GUIDE_STATE/cwd"\nexport -p > "$GUIDE_STATE/env"\n`;
    const child = this.spawn(`${this.script(step)}${save}`);
    let output = '';
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      watch?.(output);
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    const timer = setTimeout(() => stopGroup(child), timeoutMs);
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', resolve);
    });
    clearTimeout(timer);
    if (code === 0) this.saved = true;
    return { code, output };
  }

  /** Starts a step that runs until stopped (a server in a second terminal). */
  begin(step: string): BackgroundStep {
    const child = this.spawn(this.script(step));
    let output = '';
    const listeners = new Set<() => void>();
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      for (const listener of listeners) listener();
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    child.once('exit', () => {
      for (const listener of listeners) listener();
    });
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    // Never outlive the test process.
    const killOnExit = () => stopGroup(child);
    process.once('exit', killOnExit);
    return {
      output: () => output,
      waitFor: (pattern) =>
        new Promise((resolve, reject) => {
          const check = () => {
            if (pattern.test(output)) {
              listeners.delete(check);
              resolve();
            } else if (child.exitCode !== null || child.signalCode !== null) {
              listeners.delete(check);
              reject(
                new Error(
                  `the step exited (${child.exitCode ?? child.signalCode}) before printing ${pattern}:\n${output}`,
                ),
              );
            }
          };
          listeners.add(check);
          check();
        }),
      interrupt: async () => {
        if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGINT');
        // Closed once every process holding its output has ended: what it printed on the way out included.
        await closed;
      },
      stop: async () => {
        process.removeListener('exit', killOnExit);
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        stopGroup(child);
        await exited;
      },
    };
  }

  private spawn(script: string): ChildProcess {
    // Its own process group, so that stopping it stops what it started.
    return spawn('bash', ['-euo', 'pipefail', '-c', script], {
      env: this.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
  }
}

function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Ends a step and everything it started. */
function stopGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
}
