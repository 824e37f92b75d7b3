// One colour per actor, shared by every view so a learner who saw `lqsim run` recognises the
// actors in `lqsim tui`: the dispatcher cyan, workers by their order in the scenario, and any
// other actor by a hash of its name.
import type { ForegroundColorName } from 'chalk';

const DISPATCHER_COLOUR: ForegroundColorName = 'cyan';
const ACTOR_PALETTE: readonly ForegroundColorName[] = [
  'green',
  'magenta',
  'blue',
  'greenBright',
  'magentaBright',
  'blueBright',
  'cyanBright',
  'white',
];

export function actorColour(actor: string, workers: readonly string[]): ForegroundColorName {
  if (actor === 'dispatcher') return DISPATCHER_COLOUR;
  let i = workers.indexOf(actor);
  if (i < 0) i = [...actor].reduce((h, ch) => (h * 31 + ch.codePointAt(0)!) >>> 0, 7);
  return ACTOR_PALETTE[i % ACTOR_PALETTE.length]!;
}
