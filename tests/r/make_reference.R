# Reference values for tests/unit/test_stats_r_reference.py, computed with R.
#
# Re-run from the repository root (needs R >= 4.2 with the car, lme4, jsonlite and
# multcompView packages; on Debian: apt-get install r-base-core r-cran-car
# r-cran-lme4 r-cran-jsonlite r-cran-multcompview):
#
#     Rscript tests/r/make_reference.R
#
# It (re)writes the data sets tests/data/r_reference/*.csv (small, made here from
# fixed numbers or from set.seed(), values rounded so that the CSV round-trips
# exactly) and R's results in tests/data/r_reference/reference.json. The Python
# tests read both files, so CI does not need R. Commit the outputs together with
# this script; the JSON records the R and package versions used.

suppressPackageStartupMessages({
  library(car)
  library(lme4)
  library(jsonlite)
  library(multcompView)
})

out_dir <- file.path("tests", "data", "r_reference")
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)

write_data <- function(df, name) {
  write.csv(df, file.path(out_dir, paste0(name, ".csv")), row.names = FALSE, quote = TRUE)
  # read back, so that R computes on exactly what Python reads
  read.csv(file.path(out_dir, paste0(name, ".csv")), stringsAsFactors = TRUE)
}

# ---------------------------------------------------------------- data sets

# REFERENCE.md section 15 (unbalanced 3 x 2)
ref15 <- data.frame(
  system = rep(c("S1", "S1", "S2", "S2", "S3", "S3"), times = c(3, 2, 2, 3, 3, 3)),
  domain = rep(c("furn", "ppl", "furn", "ppl", "furn", "ppl"), times = c(3, 2, 2, 3, 3, 3)),
  y = c(.80, .75, .85, .60, .65, .70, .72, .55, .50, .58, .90, .88, .86, .62, .70, .66)
)
ref15 <- write_data(ref15, "ref15_two_way")

# A larger unbalanced 4 x 2 design with two dependent variables (Type I != III)
set.seed(20090330)
cells <- expand.grid(domain = c("furniture", "people"), system = c("A", "B", "C", "D"))
sizes <- c(5, 9, 7, 4, 10, 6, 3, 8)
sys_eff <- c(A = 60, B = 66, C = 71, D = 58)
dom_eff <- c(furniture = 4, people = -4)
unb <- do.call(rbind, lapply(seq_len(nrow(cells)), function(i) {
  s <- as.character(cells$system[i]); d <- as.character(cells$domain[i]); n <- sizes[i]
  inter <- if (s == "C" && d == "people") -6 else 0
  data.frame(system = s, domain = d,
             adequacy = round(sys_eff[[s]] + dom_eff[[d]] + inter + rnorm(n, 0, 8), 1),
             fluency = round(0.5 * sys_eff[[s]] + 20 + rnorm(n, 0, 6), 1))
}))
unb <- write_data(unb, "unbalanced_4x2")

# REFERENCE.md section 16, example A (balanced one-way)
tukey_a <- data.frame(
  group = rep(c("A", "B", "C", "D"), each = 5),
  y = c(2, 3, 2.5, 3.5, 3, 3.5, 4, 3, 4.5, 4, 5, 4.5, 5.5, 4, 5, 6.5, 6, 5.5, 7, 6)
)
tukey_a <- write_data(tukey_a, "tukey_example_a")

# REFERENCE.md section 16, example B (n = 2, 30, 30; means 0, 1.0, 1.7; sd 1)
z30 <- as.numeric(scale(1:30))
tukey_b <- data.frame(
  group = rep(c("A", "B", "C"), times = c(2, 30, 30)),
  y = round(c(0.707107, -0.707107, 1.0 + z30, 1.7 + z30), 6)
)
tukey_b <- write_data(tukey_b, "tukey_example_b")

# REFERENCE.md section 17 (binary accuracy indicators)
kw <- data.frame(
  system = rep(c("A", "B", "C"), each = 10),
  correct = c(1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
              1, 0, 1, 0, 1, 1, 0, 1, 0, 1,
              0, 0, 1, 0, 1, 0, 0, 1, 0, 0)
)
kw <- write_data(kw, "kruskal_binary")

# Seed 001 (TUNA-REG'09) published system means: Tables 5, 6 and 8
tuna <- data.frame(
  system = c("GRAPH", "IS-FP-GT", "NIL-UCM-EvoTAP", "USP-EACH", "NIL-UCM-ValuesCBR",
             "NIL-UCM-EvoCBR", "HUMAN-2", "HUMAN-1"),
  fluency = c(85.81, 66.21, 61.95, 84.20, 59.41, 55.38, 73.38, 71.52),
  adequacy = c(84.11, 59.46, 76.16, 77.72, 72.34, 63.65, 74.63, 70.38),
  id_acc = c(0.96, 0.68, 0.88, 0.90, 0.87, 0.81, 0.83, 0.91),
  id_speed = c(3069.16, 3167.11, 3159.41, 3067.16, 3262.53, 3362.22, 3463.88, 3517.58),
  acc = c(12.50, 3.57, 6.25, 7.14, 2.68, 2.68, 2.68, 2.68),
  se = c(6.41, 6.74, 7.28, 7.59, 7.71, 8.02, 9.68, 9.68),
  bleu = c(0.47, 0.28, 0.26, 0.27, 0.27, 0.26, 0.12, 0.12),
  nist = c(2.57, 0.75, 0.90, 1.33, 1.69, 1.97, 1.78, 1.68)
)
tuna <- write_data(tuna, "tuna09_system_means")

# REFERENCE.md section 19 (paired t-test)
paired <- data.frame(
  item = rep(1:6, 2),
  system = rep(c("x", "z"), each = 6),
  score = c(2.1, 2.5, 1.9, 2.8, 2.4, 2.2, 2.4, 2.6, 2.3, 3.1, 2.5, 2.6)
)
paired <- write_data(paired, "paired_ttest")

# REFERENCE.md section 20 (MANOVA)
mv <- data.frame(
  system = rep(c("S1", "S2", "S3"), each = 4),
  rt = c(1.8, 2.0, 1.9, 2.2, 2.4, 2.6, 2.3, 2.5, 2.1, 2.0, 2.3, 2.2),
  acc = c(.95, .90, 1.0, .85, .80, .75, .85, .70, .90, .95, .80, .90)
)
mv <- write_data(mv, "manova_ref20")

# Crossed subjects x items design (Latin square: 8 subjects, 16 items, 4 systems)
set.seed(112)
subj_eff <- rnorm(8, 0, 6); item_eff <- rnorm(16, 0, 4)
sys_r <- c(A = 0, B = 4, C = -3, D = 6); sys_t <- c(A = 0, B = -0.10, C = 0.05, D = -0.15)
grid <- expand.grid(item = 1:16, subject = 1:8)
grid$system <- c("A", "B", "C", "D")[((grid$subject + grid$item) %% 4) + 1]
mixed <- data.frame(
  subject = paste0("s", grid$subject), item = paste0("i", grid$item), system = grid$system,
  rating = round(60 + sys_r[grid$system] + subj_eff[grid$subject] + item_eff[grid$item] +
                   rnorm(nrow(grid), 0, 5), 2),
  time_ms = round(exp(log(3000) + sys_t[grid$system] + 0.02 * subj_eff[grid$subject] +
                        0.03 * item_eff[grid$item] + rnorm(nrow(grid), 0, 0.15)))
)
mixed <- write_data(mixed, "mixed_crossed")

# ---------------------------------------------------------------- helpers

type1 <- function(fit) {
  a <- summary(fit)[[1]]
  rn <- trimws(rownames(a))
  list(term = rn, ss = a[["Sum Sq"]], df = a[["Df"]], f = a[["F value"]], p = a[["Pr(>F)"]])
}
car_table <- function(fit, type) {
  a <- car::Anova(fit, type = type)
  rn <- rownames(a)
  keep <- rn != "(Intercept)"
  list(term = rn[keep], ss = a[["Sum Sq"]][keep], df = a[["Df"]][keep],
       f = a[["F value"]][keep], p = a[["Pr(>F)"]][keep])
}
tukey_table <- function(fit, which) {
  t <- TukeyHSD(fit, which)[[which]]
  list(pair = rownames(t), diff = t[, "diff"], lwr = t[, "lwr"], upr = t[, "upr"],
       p = t[, "p adj"])
}
two_way <- function(df, dv) {
  df$system <- factor(df$system); df$domain <- factor(df$domain)
  f <- as.formula(paste(dv, "~ system * domain"))
  seqfit <- aov(f, data = df)
  sumfit <- lm(f, data = df, contrasts = list(system = contr.sum, domain = contr.sum))
  oneway <- aov(as.formula(paste(dv, "~ system")), data = df)
  list(
    type1 = type1(seqfit),
    type2 = car_table(sumfit, 2),
    type3 = car_table(sumfit, 3),
    oneway = type1(oneway),
    mse = deviance(seqfit) / df.residual(seqfit),
    df_resid = df.residual(seqfit),
    tukey_system_twoway = tukey_table(seqfit, "system"),
    tukey_system_oneway = tukey_table(oneway, "system"),
    kruskal = with(kruskal.test(as.formula(paste(dv, "~ system")), data = df),
                   list(h = unname(statistic), df = unname(parameter), p = p.value))
  )
}
letters_of <- function(tk) {
  p <- tk[, "p adj"]
  names(p) <- rownames(tk)
  l <- multcompLetters(p, threshold = 0.05)$Letters
  as.list(l)
}
manova_tests <- function(fit_summary_fun) {
  res <- list()
  for (test in c("Wilks", "Pillai", "Hotelling-Lawley", "Roy")) {
    s <- fit_summary_fun(test)
    res[[test]] <- s
  }
  res
}

# ---------------------------------------------------------------- results

ref <- list()
ref$meta <- list(
  r_version = R.version.string,
  car = as.character(packageVersion("car")),
  lme4 = as.character(packageVersion("lme4")),
  multcompView = as.character(packageVersion("multcompView"))
)

ref$ref15_two_way <- two_way(ref15, "y")

u <- two_way(unb, "adequacy")
u$pairwise_wilcox <- local({
  levels <- sort(unique(as.character(unb$system)))
  pairs <- combn(levels, 2)
  out <- list(a = character(), b = character(), w = numeric(), p = numeric())
  for (k in seq_len(ncol(pairs))) {
    x <- unb$adequacy[unb$system == pairs[1, k]]
    y <- unb$adequacy[unb$system == pairs[2, k]]
    w <- suppressWarnings(wilcox.test(x, y, exact = FALSE, correct = TRUE))
    out$a <- c(out$a, pairs[1, k]); out$b <- c(out$b, pairs[2, k])
    out$w <- c(out$w, unname(w$statistic)); out$p <- c(out$p, w$p.value)
  }
  out
})
u$manova_type3 <- local({
  unb$system <- factor(unb$system); unb$domain <- factor(unb$domain)
  fit <- lm(cbind(adequacy, fluency) ~ system * domain, data = unb,
            contrasts = list(system = contr.sum, domain = contr.sum))
  m <- car::Manova(fit, type = 3)
  terms <- setdiff(m$terms, "(Intercept)")
  # the same computation as car's print method (via stats' internal helpers)
  stat_fun <- list("Wilks" = stats:::Wilks, "Pillai" = stats:::Pillai,
                   "Hotelling-Lawley" = stats:::HL, "Roy" = stats:::Roy)
  res <- list()
  for (test in names(stat_fun)) {
    rows <- lapply(terms, function(term) {
      eig <- Re(eigen(qr.coef(qr(m$SSPE), m$SSP[[term]]), symmetric = FALSE)$values)
      st <- stat_fun[[test]](eig, m$df[[term]], m$error.df)
      c(st, pf(st[2], st[3], st[4], lower.tail = FALSE))
    })
    res[[test]] <- list(
      term = terms,
      value = vapply(rows, function(r) r[1], 0), f = vapply(rows, function(r) r[2], 0),
      df1 = vapply(rows, function(r) r[3], 0), df2 = vapply(rows, function(r) r[4], 0),
      p = vapply(rows, function(r) r[5], 0)
    )
  }
  res
})
ref$unbalanced_4x2 <- u

ref$tukey_example_a <- local({
  fit <- aov(y ~ group, data = tukey_a)
  tk <- TukeyHSD(fit, "group")$group
  list(mse = deviance(fit) / df.residual(fit), df_resid = df.residual(fit),
       anova = type1(fit), tukey = tukey_table(fit, "group"),
       q_crit = qtukey(0.95, 4, df.residual(fit)),
       letters = letters_of(tk))
})

ref$tukey_example_b <- local({
  fit <- aov(y ~ group, data = tukey_b)
  tk <- TukeyHSD(fit, "group")$group
  list(mse = deviance(fit) / df.residual(fit), df_resid = df.residual(fit),
       tukey = tukey_table(fit, "group"),
       q_crit = qtukey(0.95, 3, df.residual(fit)),
       letters = letters_of(tk))
})

ref$kruskal_binary <- local({
  k <- kruskal.test(correct ~ factor(system), data = kw)
  chi <- suppressWarnings(chisq.test(table(kw$system, kw$correct), correct = FALSE))
  list(h = unname(k$statistic), df = unname(k$parameter), p = k$p.value,
       pearson_chi2 = unname(chi$statistic))
})

ref$tuna09_system_means <- local({
  measures <- c("fluency", "adequacy", "id_acc", "id_speed", "acc", "se", "bleu", "nist")
  corr <- function(df, method) {
    pairs <- combn(measures, 2)
    out <- list(a = character(), b = character(), r = numeric(), p = numeric(),
                df = numeric())
    for (k in seq_len(ncol(pairs))) {
      ct <- suppressWarnings(cor.test(df[[pairs[1, k]]], df[[pairs[2, k]]],
                                      method = method, exact = FALSE))
      out$a <- c(out$a, pairs[1, k]); out$b <- c(out$b, pairs[2, k])
      out$r <- c(out$r, unname(ct$estimate)); out$p <- c(out$p, ct$p.value)
      out$df <- c(out$df, nrow(df) - 2)
    }
    out
  }
  peers <- tuna[!(tuna$system %in% c("HUMAN-1", "HUMAN-2")), ]
  list(pearson_all = corr(tuna, "pearson"), pearson_peers = corr(peers, "pearson"),
       spearman_all = corr(tuna, "spearman"), spearman_peers = corr(peers, "spearman"))
})

ref$paired_ttest <- local({
  x <- paired$score[paired$system == "x"]; z <- paired$score[paired$system == "z"]
  t <- t.test(x, z, paired = TRUE)
  list(t = unname(t$statistic), df = unname(t$parameter), p = t$p.value,
       ci_low = t$conf.int[1], ci_high = t$conf.int[2], delta = unname(t$estimate))
})

ref$manova_ref20 <- local({
  fit <- manova(cbind(rt, acc) ~ factor(system), data = mv)
  res <- list()
  for (test in c("Wilks", "Pillai", "Hotelling-Lawley", "Roy")) {
    s <- summary(fit, test = test)$stats
    res[[test]] <- list(value = s[1, 2], f = s[1, 3], df1 = s[1, 4], df2 = s[1, 5],
                        p = s[1, 6])
  }
  res
})

ref$mixed_crossed <- local({
  fit_one <- function(formula) {
    m <- lmer(formula, data = mixed, REML = TRUE)
    co <- summary(m)$coefficients
    vc <- as.data.frame(VarCorr(m))
    list(term = rownames(co), estimate = unname(co[, "Estimate"]),
         se = unname(co[, "Std. Error"]),
         vc_group = vc$grp, vc_var = vc$vcov, loglik = as.numeric(logLik(m)))
  }
  list(
    rating_means = fit_one(rating ~ 0 + system + (1 | subject) + (1 | item)),
    rating_treatment = fit_one(rating ~ system + (1 | subject) + (1 | item)),
    logtime_means = fit_one(log(time_ms) ~ 0 + system + (1 | subject) + (1 | item))
  )
})

json <- toJSON(ref, auto_unbox = TRUE, digits = NA, pretty = TRUE)
writeLines(json, file.path(out_dir, "reference.json"), useBytes = TRUE)
cat("wrote", file.path(out_dir, "reference.json"), "\n")
