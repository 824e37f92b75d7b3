// The tool's own Lua scripts (the TTL sweep, the reads of a step's end), sent by EVALSHA. With
// MONITOR attached, an EVAL costs Redis its whole text twice (hashed, and written to every monitor
// as one escaped line) and the tool once more (that line read back and parsed): the sweep took
// 154 µs by EVAL and 58 µs by EVALSHA, round trip included (docs/performance.md). Laravel's own
// scripts are still sent as Laravel sends them, by EVAL.
//
// Sent on the observer (run), a script is loaded the first time Redis says NOSCRIPT (a new server,
// or another client's SCRIPT FLUSH) and sent again: the refused EVALSHA shows on MONITOR too, so a
// reader of the lines that counts a script's calls tells a second line of the same call by its
// arguments (virtual-expiry.ts). Sent by a sender whose commands go ahead of an actor's next one
// (ConnectionHub.beforeNext: a step's end that costs no round trip, step-collector.ts), it is
// loaded first (load), and a NOSCRIPT then ends the run: a retry would read the state after
// commands that came later. A user that may not run EVALSHA or SCRIPT LOAD (an ACL) gets the EVAL
// as before.
import { createHash } from 'node:crypto';

/** What sends the script (the observer, or ConnectionHub.beforeNext). */
export interface ScriptSender {
  sendCommand(args: string[]): Promise<unknown>;
  /** Its commands go out ahead of later ones (ConnectionHub.beforeNext): a script is never sent again. */
  readonly ahead?: boolean;
}

export class ToolScript {
  /** Every tool script's sha and text: their calls are never Laravel's (isToolCall). */
  private static readonly shas = new Set<string>();
  private static readonly texts = new Set<string>();

  readonly sha: string;
  /** EVALSHA or SCRIPT LOAD was refused (NOPERM): EVAL from then on. */
  private byText = false;

  constructor(
    readonly text: string,
    /** How a message names it ("the queues' snapshot"). */
    readonly title: string,
  ) {
    this.sha = createHash('sha1').update(text).digest('hex');
    ToolScript.shas.add(this.sha);
    ToolScript.texts.add(text);
  }

  /** Whether a command (a MONITOR line's args) is a call of one of the tool's scripts. */
  static isToolCall(args: readonly string[]): boolean {
    const name = args[0];
    if (name === undefined || (name.length !== 7 && name.length !== 4)) return false;
    const upper = name.toUpperCase();
    if (upper === 'EVALSHA') return ToolScript.shas.has(args[1] ?? '');
    return upper === 'EVAL' && ToolScript.texts.has(args[1] ?? '');
  }

  /** Whether a MONITOR line's args are this script's call (EVAL with its text or EVALSHA with its sha). */
  isCall(args: readonly string[]): boolean {
    const name = args[0]?.toUpperCase();
    return (name === 'EVALSHA' && args[1] === this.sha) || (name === 'EVAL' && args[1] === this.text);
  }

  /** Runs the script: numkeys, keys and args as EVAL takes them. */
  async run(sender: ScriptSender, rest: string[]): Promise<unknown> {
    if (this.byText) return sender.sendCommand(['EVAL', this.text, ...rest]);
    if (sender.ahead === true) return this.runAhead(sender, rest);
    try {
      return await sender.sendCommand(['EVALSHA', this.sha, ...rest]);
    } catch (e) {
      if (refused(e, 'NOPERM')) return this.evalFromNowOn(sender, rest);
      if (!refused(e, 'NOSCRIPT')) throw e;
    }
    if (!(await this.load(sender))) return sender.sendCommand(['EVAL', this.text, ...rest]);
    return sender.sendCommand(['EVALSHA', this.sha, ...rest]);
  }

  /**
   * The script sent ahead of later commands: loaded before (load), so a NOSCRIPT means Redis lost
   * it during the run, and that is the run's error.
   */
  private async runAhead(sender: ScriptSender, rest: string[]): Promise<unknown> {
    try {
      return await sender.sendCommand(['EVALSHA', this.sha, ...rest]);
    } catch (e) {
      if (!refused(e, 'NOSCRIPT')) throw e;
      throw new Error(
        `Redis lost lqsim's script for ${this.title} during the run (its script cache was emptied: another client's SCRIPT FLUSH, or a restart), so a step's end could not be read; the run stops`,
        { cause: e },
      );
    }
  }

  /** SCRIPT LOAD; false (and EVAL from then on) for a user that may not. */
  async load(sender: ScriptSender): Promise<boolean> {
    if (this.byText) return false;
    try {
      await sender.sendCommand(['SCRIPT', 'LOAD', this.text]);
      return true;
    } catch (e) {
      if (!refused(e, 'NOPERM')) throw e;
      this.byText = true;
      return false;
    }
  }

  private evalFromNowOn(sender: ScriptSender, rest: string[]): Promise<unknown> {
    this.byText = true;
    return sender.sendCommand(['EVAL', this.text, ...rest]);
  }
}

function refused(e: unknown, code: 'NOPERM' | 'NOSCRIPT'): boolean {
  return (e instanceof Error ? e.message : String(e)).startsWith(code);
}
