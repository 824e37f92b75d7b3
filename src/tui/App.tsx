// The terminal UI for one run: header, the MONITOR trace beside the queue and worker state, the
// narration, and the keys. It holds only what the person chose to look at (ui-state.ts); what is
// drawn is a pure function of the session's snapshot and that choice (view-model.ts).
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { Box, Text, useApp, useStdin } from 'ink';
import { LAB_BINDINGS } from './lab-keys.ts';
import type { LabSession } from './lab-session.ts';
import { LabLine, labPanelLines, useLabStatus } from './LabLine.tsx';
import type { ColourLevel } from '../output/colour.ts';
import { makeChalk } from '../output/colour.ts';
import { terminalSafe } from '../output/terminal-safe.ts';
import type { Step, Timeline } from '../scenarios/timeline.ts';
import { DetailView } from './DetailView.tsx';
import { detailLines } from './detail-lines.ts';
import { Footer } from './Footer.tsx';
import { Header } from './Header.tsx';
import { Help } from './Help.tsx';
import { helpBindings, helpLines } from './help-lines.ts';
import { idleAt } from './idle-steps.ts';
import type { Mode } from './keymap.ts';
import { bindingsFor } from './keymap.ts';
import { layoutFor, MIN_COLUMNS, MIN_ROWS, paneBody } from './layout.ts';
import type { StepSource } from './live-session.ts';
import { Narration } from './Narration.tsx';
import { premiseLines, premiseTitle } from './premise-lines.ts';
import { narrationHeading } from './narration-lines.ts';
import { StatePane } from './StatePane.tsx';
import { ThemeContext } from './theme-context.ts';
import { TracePane } from './TracePane.tsx';
import { traceRowAt } from './trace-window.ts';
import type { Action, UiState, View } from './ui-state.ts';
import { initialUiState, reduce, SPEEDS, speedLabel } from './ui-state.ts';
import { useKeys } from './use-keys.ts';
import { usePlayer } from './use-player.ts';
import { useSession } from './use-session.ts';
import { useTerminalSize } from './use-terminal-size.ts';
import { viewModel } from './view-model.ts';

export interface AppProps {
  session: StepSource;
  /** Shown until the run's first step arrives. */
  scenario: string;
  /**
   * The scenario and profile as loaded before the run started: the premise is drawn from it until
   * the run's timeline arrives, so the first frame does not wait for Redis.
   */
  premise?: Premise;
  /** Colours on (off under NO_COLOR, in tests). */
  colour: boolean;
  /** SGR level for bold, dim and inverse (and colours when `colour`): 0 prints plain text. */
  styleLevel?: ColourLevel;
  initial?: Partial<UiState>;
  /** Lab mode: the session can be changed from the keyboard (lab-session.ts). */
  lab?: LabSession;
  /** Opened from the picker: b goes back to it. */
  onBack?: () => void;
  /** Replay mode: L turns the scenario, up to the step shown, into a lab. */
  onBranch?: (step: number) => void;
}

/** What the premise overlay shows: the run's timeline has the same two fields. */
export type Premise = Pick<Timeline, 'scenario' | 'profile'>;

export function App({
  session,
  scenario,
  premise,
  colour,
  styleLevel = colour ? 1 : 0,
  initial,
  lab,
  onBack,
  onBranch,
}: AppProps) {
  const { exit } = useApp();
  const { isRawModeSupported } = useStdin();
  const { columns, rows } = useTerminalSize();
  const chalk = useMemo(() => makeChalk(styleLevel), [styleLevel]);
  const snap = useSession(session);
  const [ui, setUi] = useState<UiState>(() => ({ ...initialUiState, ...initial }));
  const labStatus = useLabStatus(lab);
  const layout = useMemo(() => layoutFor(columns, rows), [columns, rows]);
  // Moving the selection (↑/↓) changes none of these: the panes get the same lines back.
  const vm = useMemo(() => viewModel(snap, { target: ui.target }, layout), [snap, ui.target, layout]);
  const theme = useMemo(() => ({ colour, chalk, workers: vm.workers }), [colour, chalk, vm.workers]);
  const overlayHeight = layout.mainRows + layout.narrationRows + 1;
  const overlay = ui.overlay;
  // The premise comes from the run's timeline or, before it arrives, from the scenario as loaded;
  // with neither (a lab), the screen says the run is starting.
  const about: Premise | null = snap.timeline ?? premise ?? null;
  const shown = overlay.kind === 'premise' && about === null ? 'none' : overlay.kind;
  const overlayWidth = paneBody(layout.columns, overlayHeight).width;
  const offered = (action: Action | null): boolean =>
    (action !== 'picker' || onBack !== undefined) && (action !== 'lab' || onBranch !== undefined);
  // P over a step shown: → goes back to it (at 0, before the run, it starts).
  const premiseAt = vm.step === undefined ? 0 : vm.cursor;
  // The details of a line: laid out once per line opened, not again at every key that scrolls them.
  const detailOf = overlay.kind === 'detail' ? overlay : null;
  const detailStep = detailOf?.step ?? -1;
  const detailCommand = detailOf?.command ?? null;
  const detailScript = detailOf?.script ?? false;
  const details = useMemo(
    () =>
      detailStep < 0
        ? []
        : detailLines({ step: detailStep, command: detailCommand }, vm.detail, overlayWidth, detailScript),
    [detailStep, detailCommand, detailScript, vm.detail, overlayWidth],
  );
  const overlayLines =
    overlay.kind === 'detail'
      ? details
      : overlay.kind === 'help'
        ? helpLines(
            overlayWidth,
            helpBindings(
              bindingsFor('main').filter((b) => offered(b.action)),
              lab === undefined ? [] : LAB_BINDINGS,
            ),
          )
        : overlay.kind === 'premise' && about !== null
          ? premiseLines(about.scenario, about.profile, overlayWidth, premiseAt)
          : [];

  const selectedRow = vm.step === undefined ? null : traceRowAt(snap.steps, vm.start, vm.cursor, ui.selected);
  const view: View = {
    steps: snap.steps.length,
    finished: vm.finished,
    rows: vm.traceRows,
    page: paneBody(layout.traceWidth, layout.mainRows).rows,
    stateLines: vm.stateLines.length,
    statePage: paneBody(layout.stateWidth, layout.mainRows).rows - vm.statePinned.length,
    overlayLines: overlayLines.length,
    overlayPage: paneBody(layout.columns, overlayHeight).rows,
    selectedRow,
    idle: (i) => idleAt(snap.steps, i),
  };
  // Read at key time: a key can arrive after a frame is drawn but before the new handler is subscribed.
  // A layout effect runs in the same commit that draws the frame, before any key can be read.
  const viewRef = useRef(view);
  useLayoutEffect(() => {
    viewRef.current = view;
  });
  const dispatch = (action: Action): void => setUi((s) => reduce(s, action, viewRef.current));

  useEffect(() => {
    session.request(ui.target === Infinity ? Infinity : ui.target + 1);
  }, [session, ui.target]);
  useEffect(() => {
    if (ui.quit) exit();
  }, [ui.quit, exit]);
  // N over steps not run yet: look again at each step that arrives (ui-state.ts skipIdle).
  const skipping = ui.skipFrom !== null;
  useEffect(() => {
    if (skipping) dispatch('skipIdle');
  }, [skipping, snap.steps.length, vm.finished]);
  useEffect(() => {
    if (ui.back) onBack?.();
  }, [ui.back, onBack]);
  usePlayer(ui.playing, SPEEDS[ui.speed] ?? 1000, `${vm.cursor}:${vm.finished}`, () => dispatch('next'));

  // After a lab action the view moves to the step it made (or to where the clock was moved).
  useEffect(() => {
    if (lab === undefined) return;
    let seen = lab.getStatus().focus?.seq ?? 0;
    return lab.subscribe(() => {
      const focus = lab.getStatus().focus;
      if (focus === null || focus.seq === seen) return;
      seen = focus.seq;
      setUi((s) => ({ ...s, target: focus.step, selected: null, playing: false }));
    });
  }, [lab]);

  const mode: Mode = overlay.kind === 'none' ? 'main' : overlay.kind;
  const cursor = vm.cursor;
  const bindings = bindingsFor(mode, premiseAt).filter((b) => offered(b.action));
  const { command, messageSeen, notice } = useKeys({
    lab,
    labStatus,
    mode,
    cursor,
    dispatch,
    offered,
    onBranch,
    active: isRawModeSupported === true,
  });

  if (columns < MIN_COLUMNS || rows < MIN_ROWS) {
    // Drawn at the smallest layout it would overflow and wrap into garbage: say what it needs.
    return (
      <Box width={Math.max(1, columns)} height={Math.max(1, rows - 1)} overflow="hidden">
        <Text wrap="wrap">
          lqsim needs a terminal of at least {MIN_COLUMNS}×{MIN_ROWS}; this one is {columns}×{rows}. Enlarge it (the run
          waits), or press q to quit.
        </Text>
      </Box>
    );
  }

  const title = vm.step === undefined || snap.timeline === null ? scenario : snap.timeline.scenario.name;
  return (
    <ThemeContext.Provider value={theme}>
      <Box flexDirection="column" width={layout.columns} height={layout.height} overflow="hidden">
        <Header
          scenario={title}
          profile={about?.profile ?? ''}
          step={vm.step === undefined ? null : vm.cursor}
          steps={snap.steps.length}
          clock={vm.clock}
          status={snap.status}
          failed={snap.error !== undefined}
          playing={ui.playing}
          speed={speedLabel(ui.speed)}
          width={layout.columns}
        />
        {overlay.kind === 'premise' && shown === 'premise' ? (
          <DetailView
            title={premiseTitle(about?.scenario.name ?? scenario, premiseAt)}
            lines={overlayLines}
            top={overlay.top}
            width={layout.columns}
            height={overlayHeight}
          />
        ) : null}
        {overlay.kind === 'help' ? (
          <Help lines={overlayLines} top={overlay.top} width={layout.columns} height={overlayHeight} />
        ) : null}
        {overlay.kind === 'detail' ? (
          <DetailView
            title={detailTitle(overlay.step, overlay.command, snap.steps, vm.start)}
            lines={overlayLines}
            top={overlay.top}
            width={layout.columns}
            height={overlayHeight}
          />
        ) : null}
        {shown === 'none' && vm.step === undefined ? (
          <Box
            height={overlayHeight}
            width={layout.columns}
            flexDirection="column"
            justifyContent="center"
            alignItems="center"
          >
            <Text>{snap.error === undefined ? `Starting ${terminalSafe(scenario)} against Redis…` : ''}</Text>
            {snap.error === undefined ? null : (
              <Text color={colour ? 'red' : undefined}>
                The run failed before its first step: {terminalSafe(snap.error)}
              </Text>
            )}
          </Box>
        ) : null}
        {shown === 'none' && vm.step !== undefined ? (
          <>
            <Box flexDirection="row" height={layout.mainRows} width={layout.columns}>
              <TracePane
                steps={snap.steps}
                step={vm.cursor}
                ctx={vm.trace}
                selected={ui.selected}
                width={layout.traceWidth}
                height={layout.mainRows}
                rowPrefix={layout.rowPrefix}
                raw={ui.raw}
                focused={ui.focus === 'trace'}
              />
              <StatePane
                title={vm.stateTitle}
                pinned={vm.statePinned}
                lines={vm.stateLines}
                top={ui.stateTop}
                width={layout.stateWidth}
                height={layout.mainRows}
                focused={ui.focus === 'state'}
              />
            </Box>
            {lab !== undefined && labStatus !== null && (command !== null || labStatus.message?.more !== undefined) ? (
              <Narration
                heading={
                  command !== null ? 'lab command' : labStatus.message?.error === true ? 'lab · why' : 'lab help'
                }
                lines={labPanelLines(command, labStatus, layout.columns - 2, lab)}
                width={layout.columns}
                rows={layout.narrationRows}
              />
            ) : (
              <Narration
                heading={vm.narrationHeading}
                lines={vm.narration}
                width={layout.columns}
                rows={layout.narrationRows}
              />
            )}
          </>
        ) : null}
        {lab !== undefined && labStatus !== null ? (
          <LabLine
            status={labStatus}
            command={command}
            notice={notice ?? ui.notice}
            message={labStatus.message !== null && labStatus.message !== messageSeen ? labStatus.message : null}
            now={lab.now(vm.cursor)}
            bindings={mode === 'main' ? [...LAB_BINDINGS, ...bindings] : bindings}
            width={layout.columns}
          />
        ) : (
          <Footer bindings={bindings} width={layout.columns} extra={ui.notice ?? undefined} />
        )}
      </Box>
    </ThemeContext.Provider>
  );
}

/** The screen an action leaves showing, for keys that arrive together (the next frame says it too). */
function detailTitle(index: number, command: number | null, steps: readonly Step[], start: number): string {
  const step = steps[index];
  if (step === undefined) return `Step #${index}`;
  if (command === null) return `Step ${narrationHeading(step, start)}`;
  return `Step #${index}, line ${command + 1} of ${step.commands.length}`;
}
