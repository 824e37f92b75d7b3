// The picker when no scenario was named, then the App for the chosen one (b goes back to the
// picker; L turns the scenario, up to the step shown, into a lab). Every scenario opens on its
// premise: the title and description, before step #0.
import { useMemo, useState } from 'react';
import { useApp } from 'ink';
import type { ColourLevel } from '../output/colour.ts';
import type { CatalogEntry } from '../scenarios/catalog.ts';
import { inLearningOrder } from '../scenarios/catalog.ts';
import type { Premise } from './App.tsx';
import { App } from './App.tsx';
import type { LabSession } from './lab-session.ts';
import { isLabSession, LiveSession } from './live-session.ts';
import type { StepSource } from './live-session.ts';
import { Picker } from './Picker.tsx';
import type { UiState } from './ui-state.ts';

export interface OpenSession {
  source: StepSource;
  scenario: string;
  /** The scenario file, for branching into the lab. */
  file?: string;
  /** The premise as loaded, drawn before the run (and Redis) is up. */
  premise?: Premise;
}

export interface RootProps {
  colour: boolean;
  styleLevel?: ColourLevel;
  /** A session already open (a scenario was named, or the lab), or null to pick one from `entries`. */
  session: OpenSession | null;
  entries: readonly CatalogEntry[];
  /** Starts a live run of the picked scenario. */
  open: (entry: CatalogEntry) => StepSource;
  /** Stops `from` and opens its scenario as a lab, replayed to `step`. */
  branch?: (file: string, name: string, from: LiveSession, step: number) => Promise<LabSession>;
}

const OPENING: Partial<UiState> = { overlay: { kind: 'premise', top: 0 } };

export function Root({ colour, styleLevel, session, entries, open, branch }: RootProps) {
  const { exit } = useApp();
  const [current, setCurrent] = useState(session);
  // Back from a scenario, the picker shows the one it was; each opening is a new App.
  const [picked, setPicked] = useState(0);
  const [opened, setOpened] = useState(0);
  const ordered = useMemo(() => inLearningOrder(entries), [entries]);
  if (current !== null) {
    const { source, scenario, file, premise } = current;
    const lab = isLabSession<LabSession>(source) ? source : undefined;
    const live = source instanceof LiveSession ? source : undefined;
    return (
      <App
        key={opened}
        session={source}
        scenario={scenario}
        premise={premise}
        colour={colour}
        styleLevel={styleLevel}
        initial={lab === undefined ? OPENING : undefined}
        lab={lab}
        onBack={
          session === null && lab === undefined
            ? () => {
                // Its run ends first: the next scenario gets the server to itself (one run at a time).
                void (live?.stop() ?? Promise.resolve()).then(() => setCurrent(null));
              }
            : undefined
        }
        onBranch={
          live !== undefined && file !== undefined && branch !== undefined
            ? (step) => {
                branch(file, scenario, live, step).then(
                  (l) => {
                    setOpened((n) => n + 1);
                    setCurrent({ source: l, scenario: `${scenario} (lab)` });
                  },
                  // The UI closes and the CLI says why (one line, exit 1), never an unhandled rejection.
                  (e: unknown) => exit(e instanceof Error ? e : new Error(String(e))),
                );
              }
            : undefined
        }
      />
    );
  }
  return (
    <Picker
      entries={ordered}
      colour={colour}
      initial={picked}
      onPick={(e) => {
        setPicked(Math.max(0, ordered.indexOf(e)));
        setOpened((n) => n + 1);
        setCurrent({ source: open(e), scenario: e.name, file: e.file });
      }}
      onQuit={() => exit()}
    />
  );
}
