# How each method looks, the same in every figure: one line per name, with
# its colour, dash pattern and point type, all three distinct from every
# other line of its group, so that a curve drawn over another stays
# visible in colour and in greyscale print (its dashes and marks show
# through). Loaded by plots/common.gp; tests/t_plot_styles.sh checks that
# every estimator of the registry (`rfx help estimators`, lib/est/estimator.c)
# has a line, that no two lines of a group share a colour, dash or point,
# and that every colour is dark enough to read on white.
#
# Columns: name, colour, dash (a gnuplot dash string, or solid), point
# (a gnuplot point type 1-15, or a character drawn as the point). Groups,
# in order: the estimators in registry order, the clustered hybrids of
# rfx clustered (HRF sec. 3.4), the ORF paper's methods (rfx mse-table
# labels; HDHDHD is SORF and looks like it).
$STYLES << EOD
trig           #d62728  solid     7
hyb            #2ca02c  ". "      9
gerf           #9467bd  "-."      11
pois           #8c564b  "-.."     6
geom           #e377c2  "__."     4
pos            #1f77b4  "- "      5
oprf           #ff7f0e  "_ "      13
pois+          #7f7f7f  "_ ."     8
geom+          #17becf  "..-"     10
posh           #b8860b  "--  "    12
ang            #000080  ".  "     3
ang-ind        #008080  "_.."     2
gauss-hyb      #808000  "-. ."    1
cexp           #800000  "___ "    14
cexp-c         #4b0082  "_ _."    15
hyb-ind        #6a5acd  ". . -"   "★"
gauss-hyb-ind  #c51b7d  "__ "     "♣"
sderf          #2f4f4f  "_-"      "♠"
aderf          #d2691e  "-- ."    "♥"
saderf         #ba55d3  ".._"     "⬢"
-              -        -         -
hyb-cluster    #006400  "_. "     "⊕"
hyb-gmix       #3cb371  "- -."    "⊗"
-              -        -         -
RFF            #d62728  solid     7
ORF            #1f77b4  "- "      5
SORF           #2ca02c  ". "      9
QMC            #ff7f0e  "-."      13
HD             #9467bd  "_ "      11
HDHD           #8c564b  "-.."     6
EOD

# Curves that are not methods (one per dimension d, per dataset, ...):
# the k-th series of a figure, k = 1..8, the same rules.
$SERIES << EOD
1  #1b9e77  solid     7
2  #d95f02  "- "      5
3  #7570b3  "-."      9
4  #e7298a  "_ "      11
5  #000000  "-.."     13
6  #66a61e  "__."     6
7  #a6761d  "_ ."     4
8  #666666  ". "      8
EOD

# The line of name m (HDHDHD is SORF); 0 if it has none.
style_name(m) = m eq "HDHDHD" ? "SORF" : m
style_index(m) = sum [k = 1:|$STYLES|] (word($STYLES[k], 1) eq style_name(m) ? k : 0)
style_word(m, c) = style_index(m) > 0 ? word($STYLES[style_index(m)], c) : ""
# A dash string, or 1 (solid) for solid.
dash_of(w) = w eq "solid" || w eq "" ? 1 : w
# A point type: a number, or the character.
point_of(w) = w eq "" ? 1 : strstrt("0123456789", w[1:1]) > 0 ? int(w) : w

# Colour, dash and point of method m (black, solid, + for an unknown name).
color(m) = style_index(m) > 0 ? style_word(m, 2) : "#000000"
mdash(m) = dash_of(style_word(m, 3))
mpt(m) = point_of(style_word(m, 4))

# Colour, dash and point of the k-th series (cycling after 8).
series_word(k, c) = word($SERIES[(int(k) - 1) % |$SERIES| + 1], c)
scolor(k) = series_word(k, 2)
sdash(k) = dash_of(series_word(k, 3))
spt(k) = point_of(series_word(k, 4))

# Layers: the i-th of n curves drawn is wider, and its marks larger, the
# earlier it is drawn, so that a curve drawn later on top of it leaves its
# edges and marks visible (TrigRF under the hybrids or posh, ORF under
# SORF).
mlw(i, n) = n > 1 ? 2.0 + 1.5 * (n - i) / (n - 1.0) : 2.0
mps(i, n) = n > 1 ? 0.9 + 0.8 * (n - i) / (n - 1.0) : 1.1
