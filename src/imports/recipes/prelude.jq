# Helpers every import recipe's filters can use (docs/data-sources.md "Recipes").
# A count as files write it: a number, or digits as text ("1,234" too); null, blank and "-" are unknown (null);
# anything else is an error naming the text, which rejects the row.
def count:
  if . == null then null
  elif type == "number" then floor
  elif (tostring | test("^\\s*-?\\s*$")) then null
  else (tostring | gsub("[\\s,]"; "") | (tonumber? // error("not a count: \(.)")) | floor)
  end;
# Text, or null when null or blank.
def text: if . == null then null else (tostring | if test("^\\s*$") then null else . end) end;
# Epoch seconds, or milliseconds (above 10^12, MediaCrawler's rule), as RFC 3339 UTC; null and 0 are unknown.
def epoch_time: count as $n | if $n == null or $n == 0 then null elif $n > 1000000000000 then ($n / 1000 | floor | todate) else ($n | todate) end;
def pad2: tostring | if length < 2 then "0" + . else . end;
# A date as files write it ("2022-01-31", "2022/1/9", with or without a time) as "YYYY-MM-DD HH:mm:ss",
# which the store reads as Asia/Shanghai wall time; `clock` is the time of a date without one.
def wall_time(clock):
  (capture("^\\s*(?<y>\\d{4})[-/.](?<m>\\d{1,2})[-/.](?<d>\\d{1,2})(?:[ T](?<h>\\d{1,2}):(?<mi>\\d{2})(?::(?<s>\\d{2}))?)?")
    // error("not a date: \(.)"))
  | "\(.y)-\(.m | pad2)-\(.d | pad2) " + (if .h then "\(.h | pad2):\(.mi):\(.s // "00")" else clock end);
# The value of query parameter `name` in a URL, or null.
def query_param(name): (capture("[?&]" + name + "=(?<v>[^&#]*)") | .v) // null;
# Douyin and Kuaishou-style ids whose top 32 bits are the creation time (epoch seconds), as RFC 3339 UTC.
def id_time: tonumber / 4294967296 | floor | todate;
