<?php

/*
 * Byte-compare the Lua scripts of Debian's Illuminate\Queue\LuaScripts (8.83.26) with
 *   1. the texts quoted in the reference (laravel-versions.md §1.3.3 v5.8.38 and §1.3.4 v8.83.29),
 *   2. what went over the wire in the probe (captures/scripts.txt, from MONITOR, unescaped).
 *
 *   php check-lua.php [REFERENCE.md] [captures/scripts.txt]
 */

require_once '/usr/share/php/Illuminate/autoload.php';

use Illuminate\Queue\LuaScripts;

$reference = $argv[1] ?? '/work/shared/reference/laravel-versions.md';
$wireFile = $argv[2] ?? __DIR__.'/captures/scripts.txt';

$debian = [];
foreach (['size', 'push', 'pop', 'release', 'migrateExpiredJobs', 'clear'] as $m) {
    $debian[$m] = LuaScripts::$m();
}

/** The ```lua block under the heading "#### `NAME()` — VERSION". */
function reference_block(string $md, string $name, string $version): ?string
{
    $heading = "#### `{$name}()` — {$version}";
    $at = strpos($md, $heading);
    if ($at === false) {
        return null;
    }
    if (! preg_match('/```lua\n(.*?)\n```/s', $md, $m, 0, $at)) {
        return null;
    }

    return $m[1];
}

function first_difference(string $a, string $b): string
{
    $n = min(strlen($a), strlen($b));
    for ($i = 0; $i < $n && $a[$i] === $b[$i]; $i++);
    if ($i === $n && strlen($a) === strlen($b)) {
        return 'identical';
    }

    return sprintf('differ at byte %d (lengths %d vs %d): %s | %s', $i, strlen($a), strlen($b),
        json_encode(substr($a, max(0, $i - 10), 30)), json_encode(substr($b, max(0, $i - 10), 30)));
}

$md = is_file($reference) ? file_get_contents($reference) : '';
echo "Debian LuaScripts vs reference {$reference}\n";
$refs = [
    'size' => 'v5.8.38', 'push' => 'v5.8.38', 'pop' => 'v5.8.38', 'release' => 'v5.8.38',
    'migrateExpiredJobs' => 'v5.8.38', 'clear' => 'v8.83.29',
];
foreach ($refs as $name => $version) {
    $ref = reference_block($md, $name, $version);
    printf("  %-19s vs ref %-8s: %s\n", $name, $version,
        $ref === null ? 'no reference block found' : first_difference($debian[$name], $ref));
}

echo "\nDebian LuaScripts vs the wire ({$wireFile})\n";
$wire = [];
if (is_file($wireFile)) {
    preg_match_all('/^=== (\w+) \(\d+ bytes[^\n]*\n(.*?)\n=== end$/ms', file_get_contents($wireFile), $mm, PREG_SET_ORDER);
    foreach ($mm as $m) {
        $wire[$m[1] === 'migrate' ? 'migrateExpiredJobs' : $m[1]] = $m[2];
    }
}
foreach ($debian as $name => $text) {
    printf("  %-19s: %s\n", $name, isset($wire[$name]) ? first_difference($text, $wire[$name]) : 'not seen on the wire');
}

echo "\nTrailing newline in Debian's scripts: ";
foreach ($debian as $name => $text) {
    echo $name, '=', substr($text, -1) === "\n" ? 'yes' : 'no', ' ';
}
echo "\nsha1 of Debian's scripts:\n";
foreach ($debian as $name => $text) {
    printf("  %-19s %s  %d bytes\n", $name, sha1($text), strlen($text));
}
