// Shared controls: buttons, the confirmation dialog (typed confirmation and a reason), error and
// loading boxes, badges for confidence and risk. Every control is a labelled native element.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

export function Button(props: {
  children: ComponentChildren;
  onClick?: () => void;
  kind?: 'primary' | 'danger' | 'plain';
  disabled?: boolean;
  type?: 'button' | 'submit';
  testid?: string;
  label?: string;
}) {
  return (
    <button
      type={props.type ?? 'button'}
      class={`btn btn-${props.kind ?? 'plain'}`}
      onClick={props.onClick}
      disabled={props.disabled}
      data-testid={props.testid}
      aria-label={props.label}
    >
      {props.children}
    </button>
  );
}

export interface ConfirmValues {
  typed: string;
  reason: string;
}

/**
 * A modal dialog (native <dialog>: focus stays inside, Escape cancels). With `requireText` the
 * operator must type it exactly; with `reasonLabel` a reason is required. onConfirm may throw: its
 * message is shown and the dialog stays open.
 */
export function ConfirmDialog(props: {
  title: string;
  children?: ComponentChildren;
  confirmLabel: string;
  kind?: 'primary' | 'danger';
  requireText?: string;
  requireLabel?: string;
  reasonLabel?: string;
  onConfirm: (values: ConfirmValues) => Promise<void> | void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const [typed, setTyped] = useState('');
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    return () => d?.close();
  }, []);
  const typedOk = props.requireText === undefined || typed === props.requireText;
  const reasonOk = props.reasonLabel === undefined || reason.trim() !== '';
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!typedOk || !reasonOk || busy) return;
    setBusy(true);
    setError(null);
    try {
      await props.onConfirm({ typed, reason: reason.trim() });
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
      setBusy(false);
    }
  };
  return (
    <dialog
      ref={ref}
      class="dialog"
      aria-labelledby="dialog-title"
      data-testid="confirm-dialog"
      onCancel={(e) => {
        e.preventDefault();
        props.onCancel();
      }}
    >
      <form method="dialog" onSubmit={(e) => void submit(e)}>
        <h2 id="dialog-title">{props.title}</h2>
        {props.children}
        {props.requireText !== undefined && (
          <label class="field">
            <span>{props.requireLabel ?? `Type ${props.requireText} to confirm`}</span>
            <input
              data-testid="confirm-typed"
              value={typed}
              autocomplete="off"
              spellcheck={false}
              onInput={(e) => setTyped(e.currentTarget.value)}
            />
          </label>
        )}
        {props.reasonLabel !== undefined && (
          <label class="field">
            <span>{props.reasonLabel}</span>
            <textarea
              data-testid="confirm-reason"
              rows={3}
              value={reason}
              onInput={(e) => setReason(e.currentTarget.value)}
            />
          </label>
        )}
        {error && <ErrorBox message={error} />}
        <div class="dialog-actions">
          <Button onClick={props.onCancel} testid="confirm-cancel">
            Cancel
          </Button>
          <Button
            type="submit"
            kind={props.kind ?? 'primary'}
            disabled={!typedOk || !reasonOk || busy}
            testid="confirm-ok"
          >
            {busy ? 'Working…' : props.confirmLabel}
          </Button>
        </div>
      </form>
    </dialog>
  );
}

export function ErrorBox(props: { message: string }) {
  return (
    <p class="error" role="alert" data-testid="error">
      {props.message}
    </p>
  );
}

export function Loading(props: { what?: string }) {
  return (
    <p class="loading" role="status" aria-live="polite">
      Loading{props.what ? ` ${props.what}` : ''}…
    </p>
  );
}

/** A coloured label: confidence (high, medium, low, unknown), risk class, state, role. */
export function Badge(props: { value: string; kind?: string; title?: string }) {
  return (
    <span
      class={`badge badge-${props.kind ?? 'plain'} badge-${props.value}`}
      title={props.title}
      data-testid={props.kind ? `badge-${props.kind}` : undefined}
    >
      {props.value.replace(/_/g, ' ')}
    </span>
  );
}
