# Reference values for src/stats/signed-rank.ts, computed by R's own routines.
# Regenerate: Rscript test/reference/signed-rank.R > test/reference/signed-rank.json
set.seed(20261122)
fmt <- function(x) formatC(x, digits = 17, format = "g")
cases <- c()
for (n in c(3, 5, 6, 7, 8, 10, 12, 15, 20, 30, 49)) {
  for (conf in c(0.9, 0.95, 0.99, 0.995)) {
    x <- rnorm(n, mean = -0.03, sd = 0.02)
    w <- suppressWarnings(wilcox.test(x, conf.int = TRUE, conf.level = conf, exact = TRUE))
    cases <- c(cases, sprintf('{"n":%d,"confidence":%s,"x":[%s],"estimate":%s,"low":%s,"high":%s}',
      n, fmt(conf), paste(fmt(x), collapse = ","), fmt(w$estimate), fmt(w$conf.int[1]), fmt(w$conf.int[2])))
  }
}
dist <- c()
for (n in c(1, 2, 5, 10, 20, 50, 100)) {
  m <- n * (n + 1) / 2
  ks <- unique(round(c(0, 1, m / 4, m / 3, m / 2, m - 1)))
  ps <- c(0.001, 0.0125, 0.025, 0.05, 0.5, 0.975)
  dist <- c(dist, sprintf('{"n":%d,"k":[%s],"p":[%s],"q":[%s],"qp":[%s]}', n,
    paste(ks, collapse = ","), paste(fmt(psignrank(ks, n)), collapse = ","),
    paste(qsignrank(ps, n), collapse = ","), paste(fmt(ps), collapse = ",")))
}
cat('{"generator":"', R.version.string, '","intervals":[', paste(cases, collapse = ",\n"), '],\n"distribution":[', paste(dist, collapse = ",\n"), ']}\n', sep = "")
