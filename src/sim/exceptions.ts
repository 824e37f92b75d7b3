// The exceptions a job can end with, as Laravel names them (recorded in failed_jobs).

export interface JobException {
  /** Fully qualified PHP class. */
  className: string;
  message: string;
}

export const exception = (message: string): JobException => ({ className: 'Exception', message });

export const maxAttemptsExceeded = (message: string): JobException => ({
  className: 'Illuminate\\Queue\\MaxAttemptsExceededException',
  message,
});

/** TimeoutExceededException (10.10+, extends MaxAttemptsExceededException): what the timeout handler fails a job with. */
export const timeoutExceeded = (message: string): JobException => ({
  className: 'Illuminate\\Queue\\TimeoutExceededException',
  message,
});

export const manuallyFailed = (message?: string): JobException =>
  message
    ? { className: 'Exception', message }
    : // Job::fail(): `$e ?: new ManuallyFailedException`, a class with no message of its own
      // (Debian's 8.83 Queue/Jobs/Job.php:195, Queue/ManuallyFailedException.php; lqsim conformance).
      { className: 'Illuminate\\Queue\\ManuallyFailedException', message: '' };

/** `App\\Jobs\\SendEmail` → `SendEmail`; a string job's `Foo@handle` → `Foo`. */
export function shortClass(fqcn: string): string {
  const last = fqcn.slice(fqcn.lastIndexOf('\\') + 1);
  const at = last.indexOf('@');
  const short = at > 0 ? last.slice(0, at) : last;
  return short === '' ? fqcn : short;
}
