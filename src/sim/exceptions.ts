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

export const manuallyFailed = (message?: string): JobException =>
  message
    ? { className: 'Exception', message }
    : { className: 'Illuminate\\Queue\\ManuallyFailedException', message: 'This job was manually failed.' };

export function shortClass(fqcn: string): string {
  return fqcn.slice(fqcn.lastIndexOf('\\') + 1);
}
