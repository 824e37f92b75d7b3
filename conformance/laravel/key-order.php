<?php

/*
 * Print the key order of every job payload that a Lua script wrote (rpush / zadd lines) in a
 * MONITOR capture, to see PHP's json_encode order versus the pop script's cjson order.
 *
 *   php key-order.php captures/case-d.monitor.txt
 */

function unrepr(string $s): string      // reverse of Redis' sdscatrepr()
{
    return preg_replace_callback('/\\\\(?:x([0-9a-fA-F]{2})|(.))/s', function ($m) {
        if ($m[1] !== '') {
            return chr(hexdec($m[1]));
        }

        return ['n' => "\n", 'r' => "\r", 't' => "\t", 'a' => "\x07", 'b' => "\x08"][$m[2]] ?? $m[2];
    }, $s);
}

foreach (file($argv[1] ?? 'php://stdin') as $line) {
    if (! preg_match('/\[\d+ lua\] "(zadd|rpush)" "([^"]+)" (?:"(\d+)" )?"(\{.*\})"$/', rtrim($line), $m)) {
        continue;
    }
    $o = json_decode(unrepr($m[4]), true);   // PHP arrays keep the JSON's key order
    printf("%-5s %-42s attempts=%s  %s  data{%s}\n", $m[1], $m[2], $o['attempts'] ?? '?',
        implode(',', array_keys($o)), is_array($o['data'] ?? null) ? implode(',', array_keys($o['data'])) : '');
}
