# spgemm_stages.sh - for the spgemm tests; source it after common.sh.
# stages_add_up WHAT REPORT: setup_s + pre_s + transfer_s + multiply_s + compress_s of a text
# report equal its total_s within 1 ms (every stage there, total_s positive).
stages_add_up() {
  if awk '$1 ~ /^(setup|pre|transfer|multiply|compress)_s$/ { s += $2; n++ } $1 == "total_s" { t = $2 }
          END { d = s - t; exit !(n == 5 && t > 0 && d <= 0.001 && d >= -0.001) }' "$2"; then
    ok
  else
    bad "$1: stages $(awk '$1 ~ /_s$/ {printf "%s=%s ", $1, $2}' "$2")do not add up to total_s"
  fi
}
