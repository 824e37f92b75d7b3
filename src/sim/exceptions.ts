// The exceptions a job can end with, as Laravel names them (recorded in failed_jobs), and the
// PHP classes a scenario's job may throw.

export interface JobException {
  /** Fully qualified PHP class. */
  className: string;
  message: string;
}

/**
 * PHP's own Throwable classes (each with its parent; null: the root of its branch), the ones a
 * job can throw with `new X($message)`. Exception and Error are the two branches under Throwable;
 * which one a class is on matters to 5.x's Worker (caughtByWorker below).
 */
export const PHP_THROWABLES: Readonly<Record<string, string | null>> = {
  Exception: null,
  ErrorException: 'Exception',
  JsonException: 'Exception',
  LogicException: 'Exception',
  BadFunctionCallException: 'LogicException',
  BadMethodCallException: 'BadFunctionCallException',
  DomainException: 'LogicException',
  InvalidArgumentException: 'LogicException',
  LengthException: 'LogicException',
  OutOfRangeException: 'LogicException',
  RuntimeException: 'Exception',
  OutOfBoundsException: 'RuntimeException',
  OverflowException: 'RuntimeException',
  RangeException: 'RuntimeException',
  UnderflowException: 'RuntimeException',
  UnexpectedValueException: 'RuntimeException',
  Error: null,
  ArithmeticError: 'Error',
  DivisionByZeroError: 'ArithmeticError',
  AssertionError: 'Error',
  TypeError: 'Error',
  ArgumentCountError: 'TypeError',
  ValueError: 'Error',
  UnhandledMatchError: 'Error',
};

/** The class a job throws when the scenario names none: `throw new \Exception($message)`. */
export const DEFAULT_EXCEPTION = 'Exception';

/**
 * Why a scenario may not name `className` as the exception a job throws, or null. A name without
 * a namespace must be one of PHP's own Throwables; a namespaced one is the application's own class
 * (real Laravel's harness declares it as extending \Exception), but not Laravel's: the worker's own
 * exceptions (MaxAttemptsExceededException...) are its to throw, and others need more than a message.
 */
export function exceptionClassProblem(className: string): string | null {
  if (!className.includes('\\')) {
    if (className in PHP_THROWABLES) return null;
    const ci = Object.keys(PHP_THROWABLES).find((k) => k.toLowerCase() === className.toLowerCase());
    if (ci) return `PHP's class is spelt ${ci}`;
    return `"${className}" is not one of PHP's exception classes (${Object.keys(PHP_THROWABLES).join(', ')}); an application's own class needs its namespace, e.g. App\\Exceptions\\${className}`;
  }
  if (/^(Illuminate|Laravel|Symfony)\\/i.test(className))
    return `${className} is a framework class; a job throws PHP's exceptions or the application's own (App\\Exceptions\\...)`;
  return null;
}

/** `className` is `ancestor` or extends it (PHP_THROWABLES; an application's own class extends Exception). */
export function isA(className: string, ancestor: string): boolean {
  if (className === ancestor) return true;
  let c: string | null | undefined = className in PHP_THROWABLES ? className : DEFAULT_EXCEPTION;
  while (c) {
    if (c === ancestor) return true;
    c = PHP_THROWABLES[c];
  }
  return false;
}

export const exception = (message: string, className: string = DEFAULT_EXCEPTION): JobException => ({
  className,
  message,
});

/**
 * What Worker::process hands handleJobException for a Throwable the job threw. To 6.x it catches
 * `Exception $e` as it is, but wraps any other Throwable (an Error) in Symfony's
 * FatalThrowableError, which is what failed_jobs then records (Queue/Worker.php@v5.7.29:330-335;
 * v5.3.31:206-211). symfony/debug 3.1 (Laravel 5.3) prefixes a TypeError's message with
 * "Type error: " (Exception/FatalThrowableError.php@v3.1.10:25-27); 4.1 (Laravel 5.7) keeps the
 * message (@v4.1.12). 7.0 catches Throwable and passes it on as it is (Queue/Worker.php@v7.0.0:359).
 */
export function caughtByWorker(e: JobException, rule: CaughtError): JobException {
  if (rule === 'as-is' || !isA(e.className, 'Error')) return e;
  const prefix = rule === 'fatal-throwable-error-type-prefix' && isA(e.className, 'TypeError') ? 'Type error: ' : '';
  return { className: FATAL_THROWABLE_ERROR, message: `${prefix}${e.message}` };
}

export const FATAL_THROWABLE_ERROR = 'Symfony\\Component\\Debug\\Exception\\FatalThrowableError';

/** How a version's Worker::process passes on an Error (not an Exception) a job threw: caughtByWorker. */
export type CaughtError = 'as-is' | 'fatal-throwable-error' | 'fatal-throwable-error-type-prefix';

export const maxAttemptsExceeded = (message: string): JobException => ({
  className: 'Illuminate\\Queue\\MaxAttemptsExceededException',
  message,
});

/** TimeoutExceededException (10.10+, extends MaxAttemptsExceededException): what the timeout handler fails a job with. */
export const timeoutExceeded = (message: string): JobException => ({
  className: 'Illuminate\\Queue\\TimeoutExceededException',
  message,
});

/**
 * $this->fail($e): the exception the job gives, or, with none, `$e ?: new ManuallyFailedException`,
 * a class with no message of its own (Debian's 8.83 Queue/Jobs/Job.php:195,
 * Queue/ManuallyFailedException.php; lqsim conformance).
 */
export const manuallyFailed = (given?: JobException): JobException =>
  given ?? { className: 'Illuminate\\Queue\\ManuallyFailedException', message: '' };

/** `App\\Jobs\\SendEmail` → `SendEmail`; a string job's `Foo@handle` → `Foo`. */
export function shortClass(fqcn: string): string {
  const last = fqcn.slice(fqcn.lastIndexOf('\\') + 1);
  const at = last.indexOf('@');
  const short = at > 0 ? last.slice(0, at) : last;
  return short === '' ? fqcn : short;
}

/**
 * A PHP exception the app's Redis client raises into Laravel's code (not a job's): phpredis'
 * RedisCluster refusing a command whose keys span slots raises a warning, which Laravel's
 * HandleExceptions turns into ErrorException. The dispatcher's dispatch() throws it; the worker's
 * getNextJob reports it and sleeps.
 */
export class ClientException extends Error {
  /** The Laravel methods the process went through before it (a web request's, for its step). */
  methods: string[] = [];

  constructor(
    readonly exception: JobException,
    /** Why the client raised it, in a sentence for the narration. */
    readonly why: string,
  ) {
    super(`${exception.className}: ${exception.message}`);
    this.name = 'ClientException';
  }
}
