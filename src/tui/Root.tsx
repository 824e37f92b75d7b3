// The picker when no scenario was named, then the App for the chosen one (b goes back to the
// picker). Every scenario opens on its premise: the title and description, before step #0.
import { useMemo, useState } from 'react';
import { useApp } from 'ink';
import type { ColourLevel } from '../output/colour.ts';
import type { CatalogEntry } from '../scenarios/catalog.ts';
import { inLearningOrder } from '../scenarios/catalog.ts';
import { App } from './App.tsx';
import type { StepSource } from './live-session.ts';
import { Picker } from './Picker.tsx';
import type { UiState } from './ui-state.ts';

export interface RootProps {
  colour: boolean;
  styleLevel?: ColourLevel;
  /** A session already open (a scenario was named), or null to pick one from `entries`. */
  session: { source: StepSource; scenario: string } | null;
  entries: readonly CatalogEntry[];
  /** Starts a live run of the picked scenario. */
  open: (entry: CatalogEntry) => StepSource;
}

const OPENING: Partial<UiState> = { overlay: { kind: 'premise', top: 0 } };

export function Root({ colour, styleLevel, session, entries, open }: RootProps) {
  const { exit } = useApp();
  const [current, setCurrent] = useState(session);
  // Back from a scenario, the picker shows the one it was; each opening is a new App.
  const [picked, setPicked] = useState(0);
  const [opened, setOpened] = useState(0);
  const ordered = useMemo(() => inLearningOrder(entries), [entries]);
  if (current !== null)
    return (
      <App
        key={opened}
        session={current.source}
        scenario={current.scenario}
        colour={colour}
        styleLevel={styleLevel}
        initial={OPENING}
        onBack={session === null ? () => setCurrent(null) : undefined}
      />
    );
  return (
    <Picker
      entries={ordered}
      colour={colour}
      initial={picked}
      onPick={(e) => {
        setPicked(Math.max(0, ordered.indexOf(e)));
        setOpened((n) => n + 1);
        setCurrent({ source: open(e), scenario: e.name });
      }}
      onQuit={() => exit()}
    />
  );
}
