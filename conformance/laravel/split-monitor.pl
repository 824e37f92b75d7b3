#!/usr/bin/perl
# Split captures/monitor.raw.txt into one file per case (sections start at `ECHO "case:<name>"`),
# leaving out the state dumps (between ECHO dump-begin / dump-end) and MONITOR's own "OK".
# Writes, per case:
#   case-<name>.monitor.txt   verbatim MONITOR lines
#   case-<name>.abbrev.txt    the same with each EVAL's script text replaced by <push>, <pop>, ...
#   case-<name>.compact.txt   abbrev, and each job payload argument replaced by
#                             <payload id=.. attempts=N keys=php|cjson> (php = the order PHP's json_encode
#                             wrote, starting uuid,displayName; cjson = re-encoded by the pop script)
# and scripts.txt: every distinct EVAL script seen on the wire, unescaped (sdscatrepr reversed).
use strict;
use warnings;

my $dir = shift or die "usage: split-monitor.pl CAPTURE_DIR\n";
open my $in, '<', "$dir/monitor.raw.txt" or die "$dir/monitor.raw.txt: $!";

my %names = (
    '-- Push the job onto the queue'          => 'push',
    '-- Pop the first job off of the queue'   => 'pop',
    '-- Get all of the jobs with an expired'  => 'migrate',
    '-- Remove the job from the current queue' => 'release',
    "return redis.call('llen'"                => 'size',
    "local size = redis.call('llen'"          => 'clear',
);

sub script_name {
    my ($text) = @_;
    for my $p (keys %names) { return $names{$p} if index($text, $p) == 0; }
    return 'unknown';
}

# reverse of Redis' sdscatrepr(): \\ \" \n \r \t \a \b \xHH
sub unrepr {
    my ($s) = @_;
    my %esc = ('n' => "\n", 'r' => "\r", 't' => "\t", 'a' => "\a", 'b' => "\b");
    $s =~ s{\\(?:x([0-9a-fA-F]{2})|(.))}{ defined $1 ? chr(hex $1) : ($esc{$2} // $2) }ge;
    return $s;
}

sub compact_payload {
    my ($arg) = @_;                       # one quoted MONITOR argument, still escaped
    my ($id) = $arg =~ /\\"id\\":\\"(\w+)\\"/;
    my ($att) = $arg =~ /\\"attempts\\":(\d+)/;
    my $order = $arg =~ /^"\{\\"uuid\\":\\"[^\\]+\\",\\"displayName\\"/ ? 'php' : 'cjson';
    return sprintf('<payload id=%s attempts=%s keys=%s>', $id // '?', $att // '?', $order);
}

my ($out, $abbr, $comp, $skip) = (undef, undef, undef, 0);
my %scripts;
my @order;
while (my $line = <$in>) {
    next if $line =~ /^OK\s*$/;
    if ($line =~ /"ECHO" "dump-begin"/) { $skip = 1; next; }
    if ($line =~ /"ECHO" "dump-end"/)   { $skip = 0; next; }
    next if $skip;
    if ($line =~ /"ECHO" "case:([^"]+)"/) {
        close $out if $out;
        close $abbr if $abbr;
        close $comp if $comp;
        open $out,  '>', "$dir/case-$1.monitor.txt" or die $!;
        open $abbr, '>', "$dir/case-$1.abbrev.txt"  or die $!;
        open $comp, '>', "$dir/case-$1.compact.txt" or die $!;
    }
    next unless $out;
    last if $line =~ /"ECHO" "end"/;
    print $out $line;
    my $short = $line;
    if ($line =~ /"EVAL" "((?:[^"\\]|\\.)*)"/) {
        my $text = unrepr($1);
        my $name = script_name($text);
        unless (exists $scripts{$text}) { $scripts{$text} = $name; push @order, $text; }
        $short =~ s/"EVAL" "(?:[^"\\]|\\.)*"/"EVAL" <$name>/;
    }
    print $abbr $short;
    (my $c = $short) =~ s/("\{\\"uuid\\":(?:[^"\\]|\\.)*")/compact_payload($1)/ge;
    print $comp $c;
}
close $out if $out;
close $abbr if $abbr;
close $comp if $comp;

open my $sc, '>', "$dir/scripts.txt" or die $!;
for my $text (@order) {
    print $sc "=== $scripts{$text} (", length($text), " bytes, ends with newline: ",
        ($text =~ /\n\z/ ? 'yes' : 'no'), ")\n$text\n=== end\n\n";
}
close $sc;
